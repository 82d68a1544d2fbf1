"""What every `flydsl` subcommand shares: its error and its tables."""


class UserError(Exception):
    """A mistake of the command line: printed as `flydsl <command>: error: <message>`,
    exit status 2."""


def table(rows):
    """The rows as lines of left-aligned columns."""
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
