"""TensorFlow-differential snippets for tf.image's box functions: draw_bounding_boxes and
non-max suppression (py/texflow/image/_draw.py, _nms.py; owner: image). The other tf.image
functions are in snippets_image.py.
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py image_boxes`.
"""

SNIPPETS = {
    # drawing
    "image_draw/boxes": "c = [[1.0, 0.0, 0.0, 1.0], [0.0, 0.5, 1.0, 0.25]]\n"
                        "rng = np.random.default_rng(4)\n"
                        "b = (rng.random([2, 9, 4]) * 1.6 - 0.3).astype(np.float32)\n"
                        "(tf.image.draw_bounding_boxes(tf.zeros([1, 5, 6, 3]), [[[0.1, 0.1, 0.8, "
                        "0.9], [-0.1, 0.5, 0.5, 1.5], [0.8, 0.1, 0.1, 0.9], [0.0, 0.0, 0.0, 0.0]]"
                        "], c), tf.image.draw_bounding_boxes(tf.fill([2, 7, 8, 4], 0.3), b, c), "
                        "tf.image.draw_bounding_boxes(tf.fill([2, 6, 9, 1], -1.0), b, None), "
                        "tf.image.draw_bounding_boxes(tf.zeros([2, 6, 9, 1]), b, c), "
                        "tf.image.draw_bounding_boxes(tf.zeros([2, 6, 9, 1]), b, tf.zeros([0, "
                        "4])), "
                        "tf.image.draw_bounding_boxes(tf.zeros([1, 3, 12, 3]), [[[0.0, i / 11.0, "
                        "0.0, i / 11.0] for i in range(12)]], tf.zeros([0, 4])))",
    "image_draw/rank_error": ("tf.image.draw_bounding_boxes(tf.zeros([5, 6, 3]), "
                              "[[[0.1, 0.1, 0.8, 0.9]]], None)",
                              {"match": ["The rank of the images should be 4"]}),
    "image_draw/depth_error": ("tf.image.draw_bounding_boxes(tf.zeros([1, 5, 6, 2]), "
                               "[[[0.1, 0.1, 0.8, 0.9]]], None)",
                               {"match": ["Channel depth should be either 1 (GRY), 3 (RGB), "
                                          "or 4 (RGBA)"]}),
    "image_draw/boxes_rank_error": ("tf.image.draw_bounding_boxes(tf.zeros([1, 5, 6, 3]), "
                                    "[[0.1, 0.1, 0.8, 0.9]], None)",
                                    {"match": ["The rank of the boxes tensor should be 3"]}),
    "image_draw/box_size_error": ("tf.image.draw_bounding_boxes(tf.zeros([1, 5, 6, 3]), "
                                  "[[[0.1, 0.1, 0.8]]], None)",
                                  {"match": ["The size of the third dimension of the box must "
                                             "be 4. Received: 3"]}),
    "image_draw/batch_error": ("tf.image.draw_bounding_boxes(tf.zeros([1, 5, 6, 3]), "
                               "tf.zeros([2, 1, 4]), None)",
                               {"match": ["The batch sizes should be the same"]}),
    "image_draw/colors_error": ("tf.image.draw_bounding_boxes(tf.zeros([1, 5, 6, 3]), "
                                "tf.zeros([1, 1, 4]), [1.0, 0.0, 0.0])",
                                {"match": ["colors must be a 2-D matrix[3]"]}),
    "image_draw/colors_channels_error": ("tf.image.draw_bounding_boxes(tf.zeros([1, 5, 6, 3]), "
                                         "tf.zeros([1, 1, 4]), [[1.0, 0.0]])",
                                         {"match": ["colors must have equal or more channels "
                                                    "than the image provided: [1,2]"]}),
    "image_draw/int_error": ("tf.image.draw_bounding_boxes(tf.zeros([1, 5, 6, 3], tf.int32), "
                             "tf.zeros([1, 1, 4]), None)",
                             {"match": ["Value for attr 'T' of int32 is not in the list"]}),
    # non-max suppression
    "image_nms/select": "b = [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, -0.1, 1, 0.9], [0, 10, 1, 11], "
                        "[0, 10.1, 1, 11.1], [0, 100, 1, 101]]\n"
                        "s = [0.9, 0.75, 0.6, 0.95, 0.5, 0.3]\n"
                        "(tf.image.non_max_suppression(b, s, 3), "
                        "tf.image.non_max_suppression(b, s, 10, 0.5, 0.4), "
                        "tf.image.non_max_suppression(b, s, 0), "
                        "tf.image.non_max_suppression(tf.constant(b), [0.5] * 6, 6, 0.3), "
                        "tf.image.non_max_suppression([[1, 1, 0, 0], [0, 0, 0.5, 0.5]], "
                        "[0.5, 0.6], 3, 0.1), tf.image.non_max_suppression(tf.zeros([0, 4]), "
                        "tf.zeros([0]), 3), tf.image.non_max_suppression_with_scores(b, s, 6, "
                        "soft_nms_sigma=0.5), tf.image.non_max_suppression_with_scores(b, s, 6, "
                        "0.5, 0.2, soft_nms_sigma=0.3), tf.image.non_max_suppression_with_scores("
                        "b, s, 4, 0.7), tf.image.non_max_suppression_overlaps([[1.0, 0.6, 0.2], "
                        "[0.6, 1.0, 0.6], [0.2, 0.6, 1.0]], [0.1, 0.5, 0.3], 3), "
                        "tf.image.non_max_suppression_overlaps(tf.eye(3), [0.2, 0.5, 0.3], 2, "
                        "0.5, 0.25))",
    "image_nms/random": "rng = np.random.default_rng(9)\n"
                        "c = rng.random([60, 2]).astype(np.float32) * 4\n"
                        "b = np.concatenate([c, c + rng.random([60, 2]).astype(np.float32)], 1)\n"
                        "s = rng.random(60).astype(np.float32)\n"
                        "(tf.image.non_max_suppression(b, s, 40, 0.3), "
                        "tf.image.non_max_suppression(b, s, 50, 0.6, 0.2), "
                        "tf.image.non_max_suppression_with_scores(b, s, 30, 0.5, 0.1, 0.4))",
    "image_nms/size_error": ("tf.image.non_max_suppression([[0, 0, 1, 1]], [1.0], -1)",
                             {"match": ["output size must be non-negative"]}),
    "image_nms/iou_error": ("tf.image.non_max_suppression([[0, 0, 1, 1]], [1.0], 1, 1.5)",
                            {"match": ["iou_threshold must be in [0, 1]"]}),
    "image_nms/rank_error": ("tf.image.non_max_suppression([0, 0, 1, 1], [1.0], 1)",
                             {"match": ["boxes must be 2-D[4]"]}),
    "image_nms/columns_error": ("tf.image.non_max_suppression([[0, 0, 1]], [1.0], 1)",
                                {"match": ["boxes must have 4 columns"]}),
    "image_nms/scores_error": ("tf.image.non_max_suppression([[0, 0, 1, 1]], [[1.0]], 1)",
                               {"match": ["scores must be 1-D[1,1]"]}),
    "image_nms/scores_size_error": ("tf.image.non_max_suppression([[0, 0, 1, 1]], [1.0, 2.0],"
                                    " 1)", {"match": ["scores has incompatible shape"]}),
    "image_nms/sigma_error": ("tf.image.non_max_suppression_with_scores([[0, 0, 1, 1]], [1.0],"
                              " 1, soft_nms_sigma=-1.0)",
                              {"match": ["soft_nms_sigma_val must be >= 0"]}),
    "image_nms/float_size_error": ("tf.image.non_max_suppression([[0, 0, 1, 1]], [1.0], 2.5)",
                                   {"match": ["Cannot convert 2.5"]}),
    "image_nms/combined": "rng = np.random.default_rng(1)\n"
                          "c = rng.random([2, 7, 1, 2]).astype(np.float32)\n"
                          "b = np.concatenate([c, c + 0.3], -1)\n"
                          "s = rng.random([2, 7, 3]).astype(np.float32)\n"
                          "(tf.image.combined_non_max_suppression(b, s, 2, 5), "
                          "tf.image.combined_non_max_suppression(b, s, 2, 10, 0.3, 0.2), "
                          "tf.image.combined_non_max_suppression(b, s, 2, 10, pad_per_class=True),"
                          " tf.image.combined_non_max_suppression(b * 2 - 0.5, s, 3, 4, "
                          "clip_boxes=False), tf.image.combined_non_max_suppression(np.tile(b, "
                          "[1, 1, 3, 1]) + np.arange(3, dtype=np.float32)[:, None] * 0.1, s, 9, "
                          "30, 0.2), tf.image.combined_non_max_suppression(b, s, 2, 5, "
                          "pad_per_class=True))",
    "image_nms/combined_batch_error": ("tf.image.combined_non_max_suppression(tf.zeros([1, 3, 1, "
                                       "4]), tf.zeros([3, 2]), 2, 5)",
                                       {"match": ["boxes and scores must have same batch "
                                                  "size"]}),
    "image_nms/combined_q_error": ("tf.image.combined_non_max_suppression(tf.zeros([1, 3, 2, 4]),"
                                   " tf.zeros([1, 3, 3]), 2, 5)",
                                   {"match": ["third dimension of boxes must be either 1 or num "
                                              "classes"]}),
    "image_nms/combined_size_error": ("tf.image.combined_non_max_suppression(tf.zeros([1, 3, 1, "
                                      "4]), tf.zeros([1, 3, 3]), 0, 5)",
                                      {"match": ["max_size_per_class must be positive"]}),
    "image_nms/combined_total_error": ("tf.image.combined_non_max_suppression(tf.zeros([1, 3, 1, "
                                       "4]), tf.zeros([1, 3, 3]), 2, -5)",
                                       {"match": ["max_total_size must be > 0"]}),
    "image_nms/padded": "rng = np.random.default_rng(3)\n"
                        "c = rng.random([2, 30, 2]).astype(np.float32) * 3\n"
                        "b = tf.constant(np.concatenate([c, c + rng.random([2, 30, 2])"
                        ".astype(np.float32)], -1))\n"
                        "s = tf.constant(rng.random([2, 30]).astype(np.float32))\n"
                        "(tf.image.non_max_suppression_padded(b[0], s[0], 10), "
                        "tf.image.non_max_suppression_padded(b[0], s[0], 40, 0.3, 0.2, "
                        "pad_to_max_output_size=True), tf.image.non_max_suppression_padded(b, s, "
                        "12, 0.4, pad_to_max_output_size=True), "
                        "tf.image.non_max_suppression_padded(b[None], s[None], 5, "
                        "pad_to_max_output_size=True), tf.image.non_max_suppression_padded("
                        "tf.gather(b[1], [2, 3, 0, 1], axis=1), s[1], 10, 0.2, 0.3))",
    "image_nms/padded_batch_error": (
        "tf.image.non_max_suppression_padded(tf.zeros([2, 3, 4]), tf.zeros([2, 3]), 2)",
        {"match": ["'pad_to_max_output_size' (value False) must be True for batched input"]}),
    # a sampled crop: its numbers are texflow's, its rules TensorFlow's
    "image_distort/sample": "def ok(begin, size, box, least, h=40, w=30):\n"
                            "    y, x, _ = begin.numpy().tolist()\n"
                            "    rows, cols, last = size.numpy().tolist()\n"
                            "    inner = max(min(y + rows, 36) - max(y, 4), 0) * "
                            "max(min(x + cols, 27) - max(x, 3), 0)\n"
                            "    return (last == -1 and 0 <= y and y + rows <= h and 0 <= x and "
                            "x + cols <= w and 0.05 * h * w <= rows * cols and "
                            "0.6 <= cols / rows <= 1.5 and inner / (32 * 24) >= least and "
                            "np.allclose(box.numpy(), [[[y / h, x / w, (y + rows) / h, "
                            "(x + cols) / w]]]))\n"
                            "boxes = [[[0.1, 0.1, 0.9, 0.9]]]\n"
                            "tf.random.set_seed(5)\n"
                            "runs = [tf.image.sample_distorted_bounding_box([40, 30, 3], boxes, "
                            "seed=k, min_object_covered=0.3) for k in range(1, 13)]\n"
                            "same = [tf.image.stateless_sample_distorted_bounding_box([40, 30, 3]"
                            ", boxes, [4, k]) for k in range(2)]\n"
                            "again = tf.image.stateless_sample_distorted_bounding_box([40, 30, 3]"
                            ", boxes, [4, 1])\n"
                            "([ok(*r, 0.3) for r in runs], [ok(*r, 0.1) for r in same], "
                            "bool(tf.reduce_all(again[1] == same[1][1])), "
                            "[(t.dtype, t.shape) for t in runs[0]], "
                            "tf.image.sample_distorted_bounding_box([40, 30, 3], [[[0.0, 0.0, "
                            "0.02, 0.02]]], min_object_covered=1.0, area_range=[0.9, 1.0]))",
    "image_distort/no_boxes_error": (
        "tf.image.sample_distorted_bounding_box([40, 30, 3], tf.zeros([1, 0, 4]))",
        {"match": ["No bounding boxes provided as input. One must enable "
                   "use_image_if_no_bounding_boxes"]}),
    "image_distort/size_error": ("tf.image.sample_distorted_bounding_box([40, 30], "
                                 "[[[0.1, 0.1, 0.9, 0.9]]])",
                                 {"match": ["image_size must contain 3 elements[2]"]}),
    "image_distort/boxes_error": ("tf.image.sample_distorted_bounding_box([40, 30, 3], "
                                  "[[0.1, 0.1, 0.9, 0.9]])",
                                  {"match": ["input boxes must be 3-dimensional [batch, "
                                             "num_boxes, coords]: [1,4]"]}),
    "image_distort/covered_error": ("tf.image.sample_distorted_bounding_box([40, 30, 3], "
                                    "[[[0.1, 0.1, 0.9, 0.9]]], min_object_covered=-1.0)",
                                    {"match": ["Min object covered must be non-negative: -1"]}),
    "image_distort/area_error": ("tf.image.sample_distorted_bounding_box([40, 30, 3], "
                                 "[[[0.1, 0.1, 0.9, 0.9]]], area_range=[0.0, 2.0])",
                                 {"match": ["Area range must be non-negative: [0, 2]"]}),
    "image_distort/ratio_error": ("tf.image.sample_distorted_bounding_box([40, 30, 3], "
                                  "[[[0.1, 0.1, 0.9, 0.9]]], aspect_ratio_range=[-1.0, 2.0])",
                                  {"match": ["Aspect ratio range must be non-negative: "
                                             "[-1, 2]"]}),
    "image_distort/attempts_error": ("tf.image.sample_distorted_bounding_box([40, 30, 3], "
                                     "[[[0.1, 0.1, 0.9, 0.9]]], max_attempts=0)",
                                     {"match": ["Max attempts must be non-negative: 0"]}),
    "image_distort/area_size_error": ("tf.image.sample_distorted_bounding_box([40, 30, 3], "
                                      "[[[0.1, 0.1, 0.9, 0.9]]], area_range=[0.5])",
                                      {"match": ["Area range field must specify 2 "
                                                 "dimensions"]}),
}
