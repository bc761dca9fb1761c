"""`tf.train`: the Example protocol messages and TensorFlow 1's input queues.

Example, Features, Feature, BytesList, FloatList, Int64List, SequenceExample,
FeatureList, FeatureLists (data/example.py); string_input_producer, batch,
shuffle_batch, shuffle_batch_join, Coordinator, QueueRunner, add_queue_runner,
start_queue_runners (data/queues.py, data/queue_batch.py); Checkpoint, CheckpointManager,
latest_checkpoint, get_checkpoint_state, list_variables, load_checkpoint
(checkpoint/).
"""

from .checkpoint import (Checkpoint, CheckpointManager, CheckpointReader,
                         get_checkpoint_state, latest_checkpoint, list_variables)
from .data.example import (BytesList, Example, Feature, FeatureList, FeatureLists, Features,
                           FloatList, Int64List, SequenceExample)
from .data.queue_batch import (Coordinator, QueueRunner, add_queue_runner, batch, batch_join,
                               match_filenames_once, shuffle_batch, shuffle_batch_join,
                               slice_input_producer, start_queue_runners, string_input_producer)

__all__ = ["BytesList", "Checkpoint", "CheckpointManager", "Coordinator", "Example", "Feature",
           "FeatureList", "FeatureLists", "Features", "FloatList", "Int64List", "QueueRunner",
           "SequenceExample", "add_queue_runner", "batch", "batch_join", "get_checkpoint_state",
           "latest_checkpoint", "list_variables", "load_checkpoint", "match_filenames_once",
           "shuffle_batch", "shuffle_batch_join", "slice_input_producer", "start_queue_runners",
           "string_input_producer"]


def load_checkpoint(ckpt_dir_or_file):
    """A CheckpointReader for a checkpoint prefix, or for the latest one in a directory."""
    import os
    path = ckpt_dir_or_file
    if os.path.isdir(path):
        path = latest_checkpoint(path)
        if path is None:
            from .errors import NotFoundError
            raise NotFoundError(f"Couldn't find 'checkpoint' file or checkpoints in given "
                                f"directory {ckpt_dir_or_file}")
    return CheckpointReader(path)
