"""Discovery of `ctx` subcommands from installed packages (entry-point group ``ctxops.commands``).

A package adds ``[project.entry-points."ctxops.commands"] NAME = "module:function"``; the function takes
the remaining argv and returns an exit code. Nothing is imported until the command runs, so installing
fewer packages gives a smaller ``ctx`` and startup stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points

GROUP = "ctxops.commands"

CommandMain = Callable[[list[str]], int]


@dataclass(frozen=True)
class PluginCommand:
    name: str
    target: str
    distribution: str | None
    entry_point: EntryPoint

    @property
    def summary(self) -> str:
        """The contributing distribution's one-line description (metadata only; nothing is imported)."""
        dist = self.entry_point.dist
        text = dist.metadata["Summary"] if dist is not None else None
        return f"{text} [{self.distribution}]" if text else f"from {self.distribution or self.target}"

    def load(self) -> CommandMain:
        loaded: CommandMain = self.entry_point.load()
        return loaded


def discover() -> dict[str, PluginCommand]:
    """Installed plugin commands by name (the first distribution wins on a name clash)."""
    found: dict[str, PluginCommand] = {}
    for ep in entry_points(group=GROUP):
        if ep.name in found:
            continue
        dist = ep.dist.name if ep.dist is not None else None
        found[ep.name] = PluginCommand(name=ep.name, target=ep.value, distribution=dist, entry_point=ep)
    return found
