"""The work dir: confined file writes, file-block parsing and git."""

from tddforge.workspace.fileblocks import FileBlock, ParsedReply, parse_file_blocks
from tddforge.workspace.git import Commit, Git
from tddforge.workspace.paths import WriteReport, confine, write_blocks, write_file

__all__ = [
    "Commit",
    "FileBlock",
    "Git",
    "ParsedReply",
    "WriteReport",
    "confine",
    "parse_file_blocks",
    "write_blocks",
    "write_file",
]
