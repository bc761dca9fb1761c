"""The Dataset methods of windowing.py and stateful.py, and tf.data.experimental's
function forms of them (`ds.apply(tf.data.experimental.scan(...))`)."""

import types

from ..errors import InvalidArgumentError


class ExtraMethods:
    """Mixed into Dataset (dataset.py stays about its core)."""

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """Windows of `size` elements every `shift` (default `size`), taking every
        `stride`-th element; each window is a dataset (a structure of datasets for
        structured elements), so `flat_map(lambda w: w.batch(size))` makes batches."""
        from .windowing import Window
        return Window(self, size, shift, stride, drop_remainder)

    def scan(self, initial_state, scan_func, name=None):
        """`scan_func(state, element) -> (new_state, output)`: the outputs, in order."""
        from .stateful import Scan
        return Scan(self, initial_state, scan_func)

    def take_while(self, predicate, name=None):
        """The elements up to the first for which `predicate` is false."""
        from .stateful import TakeWhile
        return TakeWhile(self, predicate)

    def unique(self, name=None):
        """Each distinct element once, at its first occurrence (int32, int64 or string
        elements of one component)."""
        from .stateful import Unique
        return Unique(self)

    def get_single_element(self, name=None):
        """The one element of the dataset, as tf.Tensors; InvalidArgumentError when it has
        none or more than one."""
        from . import structure
        it = self.as_numpy_iterator()
        for element in it:
            for _ in it:
                raise InvalidArgumentError("Dataset had more than one element.")
            return structure.map_structure(structure.as_tensor, element)
        raise InvalidArgumentError("Dataset was empty.")

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None,
                        name=None):
        """Groups elements by the int64 `key_func(element)`; each group of `window_size`
        (or `window_size_func(key)`) elements, and each group left at the end (in key
        order), becomes `reduce_func(key, dataset_of_the_group)`'s elements."""
        from .windowing import GroupByWindow
        return GroupByWindow(self, key_func, reduce_func, window_size, window_size_func)

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                  bucket_batch_sizes, padded_shapes=None, padding_values=None,
                                  pad_to_bucket_boundary=False, no_padding=False,
                                  drop_remainder=False, name=None):
        """Batches elements of similar length together: bucket i holds the lengths in
        [bucket_boundaries[i-1], bucket_boundaries[i]), batched (padded unless
        `no_padding`) by bucket_batch_sizes[i]."""
        from .windowing import bucket_by_sequence_length
        return bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                         bucket_batch_sizes, padded_shapes, padding_values,
                                         pad_to_bucket_boundary, no_padding, drop_remainder)

    def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None,
                           name=None):
        """(class, element) pairs resampled toward the class distribution `target_dist`
        (texflow's random numbers)."""
        from .stateful import RejectionResample
        return RejectionResample(self, class_func, target_dist, initial_dist, seed)

    @staticmethod
    def counter(start=0, step=1, dtype="int64", name=None):
        """start, start + step, ... forever."""
        from .stateful import Counter
        return Counter(int(start), int(step), dtype)

    @staticmethod
    def random(seed=None, rerandomize_each_iteration=None, name=None):
        """Random non-negative int64 numbers forever (texflow's numbers; with a seed the
        same each pass unless `rerandomize_each_iteration`)."""
        from .stateful import RandomInts
        return RandomInts(seed, rerandomize_each_iteration)

    @staticmethod
    def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False,
                             rerandomize_each_iteration=None):
        """Elements drawn from `datasets` at random with probabilities `weights` (uniform
        by default; texflow's random numbers)."""
        from .stateful import Sample
        return Sample(datasets, weights, seed, stop_on_empty_dataset,
                      rerandomize_each_iteration)

    @staticmethod
    def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
        """For each int64 i of `choice_dataset`, the next element of `datasets[i]`."""
        from .stateful import Choose
        return Choose(datasets, choice_dataset, stop_on_empty_dataset)


def _apply_form(method):
    def transformation(*args, **kwargs):
        return lambda ds: getattr(ds, method)(*args, **kwargs)
    transformation.__name__ = method
    transformation.__doc__ = f"`ds.apply(...)` form of `Dataset.{method}`."
    return transformation


def experimental_names(dataset_cls):
    """tf.data.experimental's names for these transformations."""
    names = {m: _apply_form(m) for m in ("scan", "take_while", "group_by_window",
                                         "bucket_by_sequence_length", "rejection_resample")}
    names["unique"] = lambda: lambda ds: ds.unique()
    names["enumerate_dataset"] = lambda start=0: lambda ds: ds.enumerate(start)
    names["unbatch"] = lambda: lambda ds: ds.unbatch()
    names["get_single_element"] = lambda dataset: dataset.get_single_element()
    names["sample_from_datasets"] = dataset_cls.sample_from_datasets
    names["choose_from_datasets"] = dataset_cls.choose_from_datasets
    names["Counter"] = dataset_cls.counter

    def assert_cardinality(expected_cardinality):
        from .stateful import AssertCardinality
        return lambda ds: AssertCardinality(ds, expected_cardinality)
    names["assert_cardinality"] = assert_cardinality
    return types.SimpleNamespace(**names)
