"""gfx950's other instructions (fx.rocdl.cdna4.cvt_sr_f32_to_bf16)."""

__all__: list = []
