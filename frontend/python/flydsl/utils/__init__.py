"""Helpers of the package that depend on nothing else in it (FlyDSL's
`flydsl.utils`): `file.atomic_write`."""
