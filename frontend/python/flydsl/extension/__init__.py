"""Libraries built on the fx API (FlyDSL's `flydsl.extension`): `coop`,
the cooperative warp and block collectives (also `fx.coop`), and `random`,
counter-based random numbers (also `fx.random`)."""
