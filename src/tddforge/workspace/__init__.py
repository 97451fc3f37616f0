"""The work dir: the gate for model paths, file-block parsing, confined writes and git."""

from tddforge.workspace.confined import ConfinedPath, confine
from tddforge.workspace.fileblocks import FileBlock, ParsedReply, parse_file_blocks
from tddforge.workspace.git import Commit, Git
from tddforge.workspace.paths import WriteReport, write_blocks, write_file

__all__ = [
    "Commit",
    "ConfinedPath",
    "FileBlock",
    "Git",
    "ParsedReply",
    "WriteReport",
    "confine",
    "parse_file_blocks",
    "write_blocks",
    "write_file",
]
