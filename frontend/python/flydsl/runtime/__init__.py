"""flydsl.runtime: device queries (`flydsl.runtime.device`)."""
