"""`tf.train`: the Example protocol messages and TensorFlow 1's input queues.

Example, Features, Feature, BytesList, FloatList, Int64List, SequenceExample,
FeatureList, FeatureLists (data/example.py); string_input_producer, batch,
shuffle_batch, shuffle_batch_join, Coordinator, QueueRunner, add_queue_runner,
start_queue_runners (data/queues.py, data/queue_batch.py).
"""

from .data.example import (BytesList, Example, Feature, FeatureList, FeatureLists, Features,
                           FloatList, Int64List, SequenceExample)
from .data.queue_batch import (Coordinator, QueueRunner, add_queue_runner, batch, batch_join,
                               match_filenames_once, shuffle_batch, shuffle_batch_join,
                               slice_input_producer, start_queue_runners, string_input_producer)

__all__ = ["BytesList", "Coordinator", "Example", "Feature", "FeatureList", "FeatureLists",
           "Features", "FloatList", "Int64List", "QueueRunner", "SequenceExample",
           "add_queue_runner", "batch",
           "batch_join", "match_filenames_once", "shuffle_batch", "shuffle_batch_join",
           "slice_input_producer", "start_queue_runners", "string_input_producer"]
