from agent_harness.fixtures import agent_workspace, claude_executable

__all__ = ["agent_workspace", "claude_executable"]
