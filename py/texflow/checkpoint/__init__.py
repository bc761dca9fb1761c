"""Checkpoints: training state by key, safetensors files, atomic writes.

- `get_state(obj)` / `set_state(obj, state)`: every variable reachable from a
  model, optimizer, `Checkpoint` or dict of them, as `{key: numpy array}`, and
  back (all-or-nothing for existing variables, deferred for ones created later).
  No files involved: distribution sends these dicts between workers.
- `state_to_bytes(state)` / `state_from_bytes(data)`: the same as safetensors bytes.
- `Checkpoint`, `CheckpointManager`, `latest_checkpoint`: `tf.train`'s API.
- `safetensors`: the file format; `atomic`: crash-safe writes.
"""

from . import atomic, safetensors  # noqa: F401
from .checkpoint import Checkpoint
from .files import CheckpointReader, list_variables, read_checkpoint, write_checkpoint
from .graph import register, walk
from .manager import (CheckpointManager, CheckpointState, get_checkpoint_state,
                      latest_checkpoint, update_checkpoint_state)
from .state import (CheckpointLoadStatus, InitializationOnlyStatus, get_state,
                    restore_pending, set_state)

__all__ = ["Checkpoint", "CheckpointLoadStatus", "CheckpointManager", "CheckpointReader",
           "CheckpointState", "InitializationOnlyStatus", "get_checkpoint_state", "get_state",
           "latest_checkpoint", "list_variables", "read_checkpoint", "register",
           "restore_pending", "set_state", "state_from_bytes", "state_to_bytes",
           "update_checkpoint_state", "walk", "write_checkpoint"]


def state_to_bytes(state, metadata=None):
    """`state` ({key: array}) as the bytes of a safetensors file (for sending)."""
    return safetensors.dumps(state, metadata)


def state_from_bytes(data):
    """The `{key: array}` state in safetensors bytes from `state_to_bytes`."""
    return safetensors.loads(data)[0]
