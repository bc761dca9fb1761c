"""TensorFlow-differential snippets for tf.image (py/texflow/image/; owner: image).
`id: source` or `id: (source, options)`; the id's part before '/' is its test group.
After editing: `$TF_PYTHON scripts/make_tf_diff_fixtures.py image`.
"""

# a float batch [2, 5, 7, 3] of uneven values, its first image, and an int batch
_X = """
rng = np.random.default_rng(7)
x = tf.constant(rng.random([2, 5, 7, 3]).astype(np.float32))
x3 = x[0]
xi = tf.constant(rng.integers(0, 100, [2, 5, 7, 3]).astype(np.int32))
"""

_ROW = "r = tf.constant([[[1.0], [2.0], [3.0], [4.0], [5.0]]])\n"


def _grad(call):
    """The gradient of a weighted sum of `call`'s output (f of x) with respect to x."""
    return (_X + "v = tf.Variable(x)\nwith tf.GradientTape() as t:\n    y = " + call +
            "\n    s = tf.reduce_sum(y * tf.reshape(tf.range(tf.size(y), dtype=tf.float32) "
            "% 7.0, tf.shape(y)))\nt.gradient(s, v)")


SNIPPETS = {
    # resize: TensorFlow 2's half-pixel centres
    "image_resize/bilinear_row": _ROW + "(tf.image.resize(r, [1, 2]), tf.image.resize(r, [1, 8]),"
                                        " tf.image.resize(r, [3, 5]))",
    "image_resize/bilinear": _X + "(tf.image.resize(x, [3, 4]), tf.image.resize(x, [9, 11]), "
                                  "tf.image.resize(x3, [6, 3]), tf.image.resize(x, [5, 7]))",
    "image_resize/bilinear_int": _X + "(tf.image.resize(xi, [3, 9]), "
                                      "tf.image.resize(xi[0], [8, 2]))",
    "image_resize/nearest": _X + "(tf.image.resize(x, [3, 4], 'nearest'), "
                                 "tf.image.resize(xi, [9, 11], method='nearest'), "
                                 "tf.image.resize(xi[1], [4, 13], "
                                 "tf.image.ResizeMethod.NEAREST_NEIGHBOR))",
    "image_resize/nearest_row": _ROW + "(tf.image.resize(r, [1, 2], 'nearest'), "
                                       "tf.image.resize(r, [2, 8], 'nearest'))",
    "image_resize/area": (_X + _ROW + "(tf.image.resize(r, [1, 2], 'area'), "
                                      "tf.image.resize(r, [1, 3], 'area'), "
                                      "tf.image.resize(r, [1, 7], 'area'), "
                                      "tf.image.resize(x, [2, 3], 'area'), "
                                      "tf.image.resize(xi, [7, 4], tf.image.ResizeMethod.AREA))",
                          {"rtol": 4, "atol": 4}),
    "image_resize/bicubic": (_X + _ROW + "(tf.image.resize(r, [1, 7], 'bicubic'), "
                                         "tf.image.resize(r, [3, 2], 'bicubic'), "
                                         "tf.image.resize(x, [3, 12], 'bicubic'), "
                                         "tf.image.resize(xi[0], [9, 4], 'bicubic'))",
                             {"rtol": 4, "atol": 4}),
    "image_resize/kernels": (_X + "tuple(tf.image.resize(x, s, m) for m in ['lanczos3', "
                                  "'lanczos5', 'gaussian', 'mitchellcubic'] "
                                  "for s in ([3, 4], [8, 13]))", {"rtol": 4, "atol": 4}),
    "image_resize/antialias": (_X + "tuple(tf.image.resize(x, s, m, antialias=True) for m in "
                                    "['bilinear', 'bicubic', 'lanczos3', 'lanczos5', "
                                    "'gaussian', 'mitchellcubic', 'area', 'nearest'] "
                                    "for s in ([2, 3], [6, 13]))", {"rtol": 4, "atol": 4}),
    "image_resize/aspect": _X + "(tf.image.resize(x, [10, 10], preserve_aspect_ratio=True), "
                                "tf.image.resize(x3, [3, 100], preserve_aspect_ratio=True), "
                                "tf.image.resize(x, [7, 3], 'nearest', True))",
    "image_resize/wide": "w = tf.constant(np.random.default_rng(2).normal(size=[1, 2, 5000, 1])"
                         ".astype(np.float32))\n(tf.image.resize(w, [3, 4099]), "
                         "tf.image.resize(w, [1, 4097], 'nearest'))",
    "image_resize/size_tensor": _X + "tf.image.resize(x, tf.constant([4, 6]))",
    "image_resize/empty_batch": "tf.image.resize(tf.zeros([0, 3, 4, 2]), [5, 6])",
    "image_resize/rank_error": ("tf.image.resize(tf.zeros([2, 3]), [5, 7])",
                                {"match": ["'images' must have either 3 or 4 dimensions"]}),
    "image_resize/size_error": ("tf.image.resize(tf.zeros([2, 3, 1]), [5])",
                                {"match": ["'size' must be a 1-D Tensor of 2 elements"]}),
    "image_resize/size_float_error": ("tf.image.resize(tf.zeros([2, 3, 1]), [5.0, 7.0])",
                                      {"match": ["'size' must be a 1-D int32 Tensor"]}),
    "image_resize/method_error": ("tf.image.resize(tf.zeros([2, 3, 1]), [5, 7], 'foo')",
                                  {"match": ["Resize method is not implemented: foo"]}),
    "image_resize/zero_size_error": ("tf.image.resize(tf.zeros([2, 3, 1]), [0, 7])",
                                     {"match": ["output dimensions must be positive"]}),
    "image_resize/empty_image_error": ("tf.image.resize(tf.zeros([1, 0, 3, 1]), [2, 7])",
                                       {"match": ["input image must be of non-zero size"]}),
    "image_resize/with_pad": _X + "(tf.image.resize_with_pad(x, 9, 9), "
                                  "tf.image.resize_with_pad(x3, 4, 12), "
                                  "tf.image.resize_with_pad(xi, 6, 5, 'nearest'))",
    "image_resize/method_case_error": (
        "tf.image.resize(tf.zeros([2, 3, 1]), [5, 7], 'BILINEAR')",
        {"match": ["Resize method is not implemented: BILINEAR"]}),
    "image_resize/with_pad_error": ("tf.image.resize_with_pad(tf.zeros([2, 3, 1]), 0, 4)",
                                    {"match": ["target_height must be > 0."]}),
    # flips, rotations, crops and pads
    "image_geometry/flips": _X + "(tf.image.flip_left_right(x), tf.image.flip_up_down(x3), "
                                 "tf.image.flip_left_right(xi[0]), tf.image.flip_up_down(xi))",
    "image_geometry/rot90": _X + "(tf.image.rot90(x), tf.image.rot90(x3, 2), "
                                 "tf.image.rot90(xi, -1), tf.image.rot90(x3, k=7), "
                                 "tf.image.rot90(x, tf.constant(4)))",
    "image_geometry/transpose": _X + "(tf.image.transpose(x), tf.image.transpose(xi[1]))",
    "image_geometry/crop": _X + "(tf.image.crop_to_bounding_box(x, 1, 2, 3, 4), "
                                "tf.image.crop_to_bounding_box(xi[0], 0, 0, 5, 7), "
                                "tf.image.central_crop(x, 0.5), tf.image.central_crop(x3, 0.34),"
                                " tf.image.central_crop(xi, 1.0))",
    "image_geometry/pad": _X + "(tf.image.pad_to_bounding_box(x, 1, 2, 7, 10), "
                               "tf.image.pad_to_bounding_box(xi[0], 0, 0, 5, 8))",
    "image_geometry/crop_or_pad": _X + "(tf.image.resize_with_crop_or_pad(x, 3, 10), "
                                       "tf.image.resize_with_crop_or_pad(x3, 8, 2), "
                                       "tf.image.resize_with_crop_or_pad(xi, 4, 4))",
    "image_geometry/flip_rank_error": ("tf.image.flip_left_right(tf.zeros([3, 4]))",
                                       {"match": ["'image' (shape (3, 4)) must be at least "
                                                  "three-dimensional."]}),
    "image_geometry/flip_rank5_error": ("tf.image.flip_up_down(tf.zeros([1, 1, 1, 1, 1]))",
                                        {"match": ["must have either 3 or 4 dimensions."]}),
    "image_geometry/rot90_rank_error": (
        "tf.image.rot90(tf.zeros([1, 1, 1, 1, 1]))",
        {"match": ["'image' (shape (1, 1, 1, 1, 1)) must have either 3 or 4 dimensions."]}),
    "image_geometry/transpose_rank_error": (
        "tf.image.transpose(tf.zeros([2, 2]))",
        {"match": ["'image' (shape (2, 2)) must be at least three-dimensional."]}),
    "image_geometry/central_rank_error": (
        "tf.image.central_crop(tf.zeros([1, 2, 2, 2, 1]), 0.5)",
        {"match": ["`image` should either be a Tensor with rank = 3 or rank = 4. Had rank = 5."]}),
    "image_geometry/rot90_k_error": ("tf.image.rot90(tf.zeros([2, 2, 1]), 1.5)",
                                     {"match": ["Cannot convert 1.5"]}),
    "image_geometry/central_error": ("tf.image.central_crop(tf.zeros([2, 2, 1]), 0.0)",
                                     {"match": ["central_fraction must be within (0, 1]"]}),
    "image_geometry/crop_offset_error": (
        "tf.image.crop_to_bounding_box(tf.zeros([4, 4, 1]), -1, 0, 2, 2)",
        {"match": ["offset_height must be >= 0."]}),
    "image_geometry/crop_target_error": (
        "tf.image.crop_to_bounding_box(tf.zeros([4, 4, 1]), 0, 0, 2, 0)",
        {"match": ["target_width must be > 0."]}),
    "image_geometry/crop_size_error": (
        "tf.image.crop_to_bounding_box(tf.zeros([4, 4, 1]), 3, 0, 2, 2)",
        {"match": ["height must be >= target + offset."]}),
    "image_geometry/crop_rank_error": (
        "tf.image.crop_to_bounding_box(tf.zeros([4, 4]), 0, 0, 2, 2)",
        {"match": ["'image' (shape (4, 4)) must have either 3 or 4 dimensions."]}),
    "image_geometry/pad_offset_error": (
        "tf.image.pad_to_bounding_box(tf.zeros([4, 4, 1]), 0, -2, 6, 6)",
        {"match": ["offset_width must be >= 0"]}),
    "image_geometry/pad_size_error": (
        "tf.image.pad_to_bounding_box(tf.zeros([4, 4, 1]), 1, 2, 6, 5)",
        {"match": ["width must be <= target - offset"]}),
    "image_geometry/crop_or_pad_error": (
        "tf.image.resize_with_crop_or_pad(tf.zeros([4, 4, 1]), 0, 2)",
        {"match": ["target_height must be > 0."]}),
    # values: dtype conversion, adjustments, grayscale, standardization
    "image_color/convert": _X + "(tf.image.convert_image_dtype(x, tf.float32), "
                                "tf.image.convert_image_dtype(xi, tf.float32), "
                                "tf.image.convert_image_dtype(np.array([0, 7, 255], np.uint8), "
                                "tf.float32), tf.image.convert_image_dtype(tf.constant([0.0, "
                                "0.25, 0.999, 1.0]), tf.int32))",
    "image_color/convert_saturate": "f = tf.constant([-0.5, 0.0, 0.5, 1.0, 1.7])\n"
                                    "(tf.image.convert_image_dtype(f, tf.int32, saturate=True),"
                                    " tf.image.convert_image_dtype(f, tf.uint8, saturate=True),"
                                    " tf.image.convert_image_dtype(f[1:4], tf.uint8))",
    "image_color/convert_ints": "u = np.array([0, 1, 128, 255], np.uint8)\n"
                                "(tf.image.convert_image_dtype(u, tf.int32), "
                                "tf.image.convert_image_dtype(tf.constant([0, 2 ** 24, "
                                "2 ** 31 - 1]), tf.uint8), tf.image.convert_image_dtype("
                                "np.array([0, 300, 32767], np.int16), tf.uint8))",
    "image_color/convert_bool_error": ("tf.image.convert_image_dtype(tf.zeros([2]), tf.bool)",
                                       {"match": ["dtype must be either floating point or "
                                                  "integer"]}),
    "image_color/bool_image_error": (
        "tf.image.adjust_brightness(tf.constant([[[True]]]), 0.1)",
        {"match": ["image dtype must be either floating point or integer"]}),
    "image_color/grayscale_bool_error": (
        "tf.image.rgb_to_grayscale(tf.zeros([2, 2, 3], tf.bool))",
        {"match": ["image dtype must be either floating point or integer"]}),
    "image_color/brightness": _X + "(tf.image.adjust_brightness(x, 0.3), "
                                   "tf.image.adjust_brightness(x3, -1.25), "
                                   "tf.image.adjust_brightness(xi, 0.5), "
                                   "tf.image.adjust_brightness(np.array([[[0, 100, 250]]], "
                                   "np.uint8), 0.1))",
    "image_color/contrast": _X + "(tf.image.adjust_contrast(x, 2.0), "
                                 "tf.image.adjust_contrast(x3, 0.25), "
                                 "tf.image.adjust_contrast(np.array([[[0], [100]], [[200], "
                                 "[250]]], np.uint8), 1.5))",
    "image_color/contrast_rank_error": ("tf.image.adjust_contrast(tf.zeros([4, 1]), 2.0)",
                                        {"match": ["input must be at least 3-D, got shape[4,1]"]}),
    "image_color/gamma": _X + "(tf.image.adjust_gamma(x, 2), tf.image.adjust_gamma(x3, 0.5, 2),"
                              " tf.image.adjust_gamma(np.array([[[0, 100, 250]]], np.uint8), "
                              "0.7))",
    "image_color/gamma_error": ("tf.image.adjust_gamma(tf.zeros([2, 2, 1]), -1)",
                                {"match": ["Gamma should be a non-negative real number."]}),
    "image_color/gamma_tensor_error": (
        "tf.image.adjust_gamma(tf.zeros([2, 2, 1]), tf.constant(-1.0))",
        {"match": ["Gamma should be a non-negative real number."]}),
    "image_color/grayscale": _X + "(tf.image.rgb_to_grayscale(x), tf.image.rgb_to_grayscale(x3),"
                                  " tf.image.rgb_to_grayscale(np.array([[[10, 200, 30]]], "
                                  "np.uint8)), tf.image.grayscale_to_rgb(x[..., :1]), "
                                  "tf.image.grayscale_to_rgb(tf.ones([2, 1])))",
    "image_color/grayscale_channels_error": "tf.image.rgb_to_grayscale(tf.ones([2, 2, 4]))",
    "image_color/to_rgb_error": ("tf.image.grayscale_to_rgb(tf.ones([2, 2, 2]))",
                                 {"match": ["Last dimension of a grayscale image should be "
                                            "size 1."]}),
    "image_color/to_rgb_rank_error": ("tf.image.grayscale_to_rgb(tf.ones([1]))",
                                      {"match": ["A grayscale image (shape (1,)) must be at "
                                                 "least two-dimensional."]}),
    "image_color/yuv_yiq": _X + "(tf.image.rgb_to_yuv(x), tf.image.yuv_to_rgb(x3), "
                                "tf.image.rgb_to_yiq(x), tf.image.yiq_to_rgb(x3), "
                                "tf.image.yuv_to_rgb(tf.image.rgb_to_yuv(x3)))",
    "image_color/yuv_int_error": ("tf.image.rgb_to_yuv(tf.ones([2, 2, 3], tf.int32))",
                                  {"match": ["to EagerTensor of dtype int32"]}),
    "image_color/yiq_channels_error": "tf.image.rgb_to_yiq(tf.ones([2, 2, 2]))",
    "image_color/hsv": _X + "e = tf.constant([[0.2, 0.5, 0.1], [0.3, 0.3, 0.3], [0.9, 0.1, 0.4], "
                            "[0.0, 0.0, 0.0], [0.5, 0.5, 0.2], [0.7, 0.2, 0.7]])\n"
                            "(tf.image.rgb_to_hsv(x), tf.image.rgb_to_hsv(e), tf.image.hsv_to_rgb("
                            "x3), tf.image.hsv_to_rgb(tf.constant([[1.0, 1.0, 1.0], [1.5, 0.5, "
                            "1.0], [-0.2, 0.5, 1.0], [0.25, 0.0, 0.5]])), "
                            "tf.image.hsv_to_rgb(tf.image.rgb_to_hsv(x)))",
    "image_color/hue_saturation": _X + "e = tf.constant([[[0.2, 0.5, 0.1], [0.3, 0.3, 0.3], "
                                       "[0.9, 0.1, 0.4], [0.0, 0.0, 0.0], [0.7, 0.2, 0.7]]])\n"
                                       "(tf.image.adjust_hue(x, 0.3), tf.image.adjust_hue(x3, "
                                       "-0.7), tf.image.adjust_hue(e, 1.0), "
                                       "tf.image.adjust_hue(e, -0.45), "
                                       "tf.image.adjust_saturation(x, 0.5), "
                                       "tf.image.adjust_saturation(x3, 3.0), "
                                       "tf.image.adjust_saturation(e, -1.0), "
                                       "tf.image.adjust_saturation(e, 1.7))",
    "image_color/hue_saturation_uint8": "u = np.array([[[10, 200, 30], [255, 0, 128], "
                                        "[40, 40, 40]]], np.uint8)\n"
                                        "(tf.image.adjust_hue(u, 0.2), "
                                        "tf.image.adjust_saturation(u, 0.4))",
    "image_color/hsv_channels_error": (
        "tf.image.rgb_to_hsv(tf.ones([2, 2]))",
        {"match": ["input must have 3 channels but input only has 2 channels."]}),
    "image_color/hsv_int_error": ("tf.image.hsv_to_rgb(tf.ones([2, 3], tf.int32))",
                                  {"match": ["Value for attr 'T' of int32 is not in the list "
                                             "of allowed values"]}),
    "image_color/hue_delta_error": ("tf.image.adjust_hue(tf.ones([1, 1, 3]), 1.5)",
                                    {"match": ["delta must be in the interval [-1, 1]"]}),
    "image_color/hue_rank_error": ("tf.image.adjust_hue(tf.ones([2, 3]), 0.1)",
                                   {"match": ["input must be at least 3-D, got shape[2,3]"]}),
    "image_color/saturation_rank_error": (
        "tf.image.adjust_saturation(tf.ones([2, 3]), 0.1)",
        {"match": ["input must be at least 3-D, got shape[2,3]"]}),
    "image_color/standardization": _X + "(tf.image.per_image_standardization(x), "
                                        "tf.image.per_image_standardization(xi[0]), "
                                        "tf.image.per_image_standardization(tf.ones([2, 3, 1])))",
    # measures
    "image_quality/total_variation": _X + "(tf.image.total_variation(x), "
                                          "tf.image.total_variation(x3), "
                                          "tf.image.total_variation(xi))",
    "image_quality/image_gradients": _X + "tf.image.image_gradients(x)",
    "image_quality/psnr": _X + "(tf.image.psnr(x, x * 0.9, 1.0), tf.image.psnr(x3, x3, 1.0), "
                               "tf.image.psnr(x, x3 + 0.1, 2.0))",
    "image_quality/total_variation_error": ("tf.image.total_variation(tf.zeros([4, 1]))",
                                            {"match": ["'images' must be either 3 or "
                                                       "4-dimensional."]}),
    "image_quality/gradients_error": ("tf.image.image_gradients(tf.zeros([3, 4, 1]))",
                                      {"match": ["image_gradients expects a 4D tensor "
                                                 "[batch_size, h, w, d], not (3, 4, 1)."]}),
    "image_quality/psnr_shapes_error": "tf.image.psnr(tf.zeros([2, 3, 1]), tf.zeros([3, 3, 1]),"
                                       " 1.0)",
    "image_quality/psnr_broadcast_error": (
        "tf.image.psnr(tf.zeros([1, 3, 1]), tf.zeros([3, 3, 1]), 1.0)",
        {"match": ["Shapes (1, 3, 1) and (3, 3, 1) are incompatible"]}),
    "image_quality/psnr_error": ("tf.image.psnr(tf.zeros([2, 3, 1]), tf.zeros([3, 1]), 1.0)",
                                 {"match": ["Shape (3, 1) must have rank at least 3"]}),
    "image_quality/ssim": _X + "y = x * 0.8 + 0.1\n"
                               "(tf.image.ssim(x, y, 1.0, filter_size=5), "
                               "tf.image.ssim(x3, y[0], 2.0, filter_size=3, filter_sigma=0.8), "
                               "tf.image.ssim(x, y, 1.0, 5, 1.5, 0.02, 0.05, True), "
                               "tf.image.ssim(xi, xi // 2 + 3, 255, filter_size=4))",
    "image_quality/ssim_default": "rng = np.random.default_rng(3)\n"
                                  "a = tf.constant(rng.random([2, 13, 12, 2]).astype(np.float32))\n"
                                  "(tf.image.ssim(a, a[::-1], 1.0), tf.image.ssim(a, a, 1.0))",
    "image_quality/ssim_size_error": "tf.image.ssim(tf.zeros([8, 8, 1]), tf.zeros([8, 8, 1]), 1.0)",
    "image_quality/ssim_shape_error": (
        "tf.image.ssim(tf.zeros([16, 16, 1]), tf.zeros([8, 16, 1]), 1.0)",
        {"match": ["Shapes (16, 16, 1) and (8, 16, 1) are incompatible"]}),
    # the last scale is one 3 x 3 window: sums of its small variances differ by a few ulp
    "image_quality/ssim_multiscale": ("rng = np.random.default_rng(5)\n"
                                      "a = tf.constant(rng.random([2, 45, 37, 2])"
                                      ".astype(np.float32))\n"
                                      "b = tf.constant(rng.random([33, 40, 1])"
                                      ".astype(np.float32))\n"
                                      "(tf.image.ssim_multiscale(a, a * 0.7 + 0.2, 1.0, "
                                      "filter_size=3), tf.image.ssim_multiscale(a, a, 1.0, "
                                      "(0.5, 0.5), filter_size=3), tf.image.ssim_multiscale(b, "
                                      "b ** 2, 2.0, (0.2, 0.3, 0.5), 5, 1.0, 0.02, 0.04))",
                                      {"rtol": 5}),
    # as above: the last scale (12 x 12) has 2 x 2 windows
    "image_quality/ssim_multiscale_default": ("rng = np.random.default_rng(6)\n"
                                              "a = tf.constant(rng.random([1, 180, 177, 1])"
                                              ".astype(np.float32))\n"
                                              "tf.image.ssim_multiscale(a, a * 0.5 + 0.3, 1.0)",
                                              {"rtol": 5}),
    "image_quality/sobel": _X + "(tf.image.sobel_edges(x), tf.image.sobel_edges(x[:, :2, :3]))",
    "image_quality/sobel_rank_error": "tf.image.sobel_edges(tf.zeros([4, 4, 1]))",
    # crops of boxes and patches
    "image_patches/crop_and_resize": "img = tf.reshape(tf.range(2 * 4 * 5 * 2, dtype=tf.float32),"
                                     " [2, 4, 5, 2])\n"
                                     "b = [[0, 0, 1, 1], [0.2, 0.1, 0.7, 0.9], [-0.5, 0, 1.5, 1],"
                                     " [1, 1, 0, 0.3], [0.5, 0.5, 0.5, 0.5]]\n"
                                     "(tf.image.crop_and_resize(img, b, [0, 1, 0, 1, 1], [3, 4]),"
                                     " tf.image.crop_and_resize(img, b, [1, 1, 0, 0, 1], [1, 1]),"
                                     " tf.image.crop_and_resize(img, b, [0, 0, 1, 1, 0], [4, 2], "
                                     "'nearest', -1.5), tf.image.crop_and_resize(tf.cast(img, "
                                     "tf.int32), b[:2], tf.constant([1, 0]), (2, 3)), "
                                     "tf.image.crop_and_resize(img, tf.zeros([0, 4]), "
                                     "tf.zeros([0], tf.int32), [2, 2]))",
    "image_patches/crop_index_error": (
        "tf.image.crop_and_resize(tf.zeros([2, 4, 4, 1]), [[0, 0, 1, 1]], [2], [2, 2])",
        {"match": ["box_index has values outside [0, batch_size)"]}),
    "image_patches/crop_boxes_error": (
        "tf.image.crop_and_resize(tf.zeros([2, 4, 4, 1]), [[0, 0, 1]], [0], [2, 2])",
        {"match": ["boxes must have 4 columns"]}),
    "image_patches/crop_indices_error": (
        "tf.image.crop_and_resize(tf.zeros([2, 4, 4, 1]), [[0, 0, 1, 1]], [0, 1], [2, 2])",
        {"match": ["box_index has incompatible shape"]}),
    "image_patches/crop_size_error": (
        "tf.image.crop_and_resize(tf.zeros([2, 4, 4, 1]), [[0, 0, 1, 1]], [0], [0, 2])",
        {"match": ["crop dimensions must be positive"]}),
    "image_patches/crop_rank_error": (
        "tf.image.crop_and_resize(tf.zeros([4, 4, 1]), [[0, 0, 1, 1]], [0], [2, 2])",
        {"match": ["input image must be 4-D"]}),
    "image_patches/crop_method_error": (
        "tf.image.crop_and_resize(tf.zeros([1, 4, 4, 1]), [[0, 0, 1, 1]], [0], [2, 2], "
        "method='bicubic')", {"match": ["Value for attr 'method' of \"bicubic\""]}),
    "image_patches/extract": _X + "(tf.image.extract_patches(x, [1, 2, 2, 1], [1, 2, 2, 1], "
                                  "[1, 1, 1, 1], 'VALID'), tf.image.extract_patches(x, [1, 3, 2, "
                                  "1], [1, 1, 2, 1], [1, 1, 2, 1], 'SAME'), "
                                  "tf.image.extract_patches(xi, [1, 2, 3, 1], [1, 3, 1, 1], "
                                  "[1, 2, 1, 1], 'VALID'), tf.image.extract_patches(x, "
                                  "[1, 4, 4, 1], [1, 3, 3, 1], [1, 1, 1, 1], 'SAME'), "
                                  "tf.image.extract_patches(x, [1, 6, 2, 1], [1, 1, 1, 1], "
                                  "[1, 1, 1, 1], 'VALID'))",
    "image_patches/extract_rank_error": (
        "tf.image.extract_patches(tf.zeros([4, 4, 1]), [1, 2, 2, 1], [1, 1, 1, 1], "
        "[1, 1, 1, 1], 'VALID')", {"match": ["input must be 4-dimensional"]}),
    "image_patches/extract_batch_error": (
        "tf.image.extract_patches(tf.zeros([1, 4, 4, 1]), [2, 2, 2, 1], [1, 1, 1, 1], "
        "[1, 1, 1, 1], 'VALID')", {"match": ["Only support ksizes across space."]}),
    "image_patches/extract_padding_error": (
        "tf.image.extract_patches(tf.zeros([1, 4, 4, 1]), [1, 2, 2, 1], [1, 1, 1, 1], "
        "[1, 1, 1, 1], 'FOO')", {"match": ["Value for attr 'padding' of \"FOO\""]}),
    # random augmentations: the shapes and the choices (a flip is all or nothing per image)
    "image_random/flips": _X + "tf.random.set_seed(3)\n"
                               "outs = [tf.image.random_flip_left_right(x), "
                               "tf.image.random_flip_up_down(x, seed=5), "
                               "tf.image.random_flip_left_right(x3, seed=1)]\n"
                               "ok = [bool(tf.reduce_all((o[i] == s[i]) | (o[i] == f[i]))) "
                               "for o, s, f in zip(outs, [x, x, x3], [x[:, :, ::-1], "
                               "x[:, ::-1], x3[:, ::-1]]) for i in range(2)]\n"
                               "(ok, [o.shape for o in outs])",
    "image_random/adjust": _X + "b = tf.image.random_brightness(x, 0.2, seed=1)\n"
                                "c = tf.image.random_contrast(x3, 0.5, 1.5, seed=2)\n"
                                "d = b - x\n"
                                "(b.shape, c.shape, bool(tf.reduce_max(d) - tf.reduce_min(d) < "
                                "1e-5), bool(tf.reduce_max(tf.abs(d)) <= 0.2))",
    "image_random/stateless": _X + "def same(f):\n"
                                   "    return bool(tf.reduce_all(f() == f()))\n"
                                   "fl = lambda: tf.image.stateless_random_flip_left_right(x, "
                                   "[1, 2])\n"
                                   "fu = lambda: tf.image.stateless_random_flip_up_down(x3, "
                                   "(7, 3))\n"
                                   "b = lambda: tf.image.stateless_random_brightness(x, 0.3, "
                                   "tf.constant([4, 5]))\n"
                                   "c = lambda: tf.image.stateless_random_contrast(xi[0], 0.2, "
                                   "0.9, [0, 1])\n"
                                   "([same(f) for f in (fl, fu, b, c)], "
                                   "[f().shape for f in (fl, fu, b, c)], c().dtype)",
    "image_random/stateless_seed_error": (
        "tf.image.stateless_random_flip_left_right(tf.zeros([2, 2, 1]), [1])",
        {"match": ["seed must have shape [2], not [1]"]}),
    "image_random/stateless_seed_dtype_error": (
        "tf.image.stateless_random_flip_up_down(tf.zeros([2, 2, 1]), [1.5, 2])",
        {"match": ["Value for attr 'Tseed'"]}),
    "image_random/stateless_range_error": (
        "tf.image.stateless_random_contrast(tf.zeros([2, 2, 1]), 0.5, 0.2, [1, 2])",
        {"match": ["upper must be > lower."]}),
    "image_random/crop": _X + "tf.random.set_seed(4)\n"
                              "c = [tf.image.random_crop(x, [1, 3, 7, 3]), "
                              "tf.image.random_crop(x3, [2, 2, 3], seed=3), "
                              "tf.image.stateless_random_crop(xi, [2, 4, 1, 2], [5, 6]), "
                              "tf.image.random_crop(x, [2, 5, 7, 3])]\n"
                              "inside = [any(bool(tf.reduce_all(c[1] == x3[i:i + 2, j:j + 2])) "
                              "for i in range(4) for j in range(6))]\n"
                              "again = tf.image.stateless_random_crop(xi, [2, 4, 1, 2], [5, 6])\n"
                              "([t.shape for t in c], inside, bool(tf.reduce_all(again == c[2])),"
                              " c[3])",
    "image_random/crop_size_error": (
        "tf.image.random_crop(tf.zeros([2, 3, 1]), [3, 3, 1])",
        {"match": ["Need value.shape >= size, got"]}),
    "image_random/crop_rank_error": ("tf.image.random_crop(tf.zeros([2, 3, 1]), [2, 2])",
                                     {"match": ["Incompatible shapes: [3] vs. [2]"]}),
    "image_random/hue_saturation": _X + "tf.random.set_seed(2)\n"
                                        "h = [tf.image.random_hue(x, 0.3), "
                                        "tf.image.stateless_random_hue(x3, 0.5, [3, 4])]\n"
                                        "s = [tf.image.random_saturation(x, 0.2, 0.9, seed=6), "
                                        "tf.image.stateless_random_saturation(x3, 0.5, 1.5, "
                                        "[3, 4])]\n"
                                        "v = tf.image.rgb_to_hsv(x3)[..., 2]\n"
                                        "([t.shape for t in h + s], [bool(tf.reduce_max(tf.abs("
                                        "tf.image.rgb_to_hsv(t[-1])[..., 2] - v)) < 1e-5) "
                                        "for t in (h[0], h[1][None], s[0], s[1][None])])",
    "image_random/hue_error": ("tf.image.random_hue(tf.ones([1, 1, 3]), 0.6)",
                               {"match": ["max_delta must be <= 0.5."]}),
    "image_random/hue_negative_error": ("tf.image.stateless_random_hue(tf.ones([1, 1, 3]), "
                                        "-0.1, [1, 2])",
                                        {"match": ["max_delta must be non-negative."]}),
    "image_random/saturation_error": ("tf.image.random_saturation(tf.ones([1, 1, 3]), -0.5, "
                                      "0.2)", {"match": ["lower must be non-negative."]}),
    "image_random/brightness_error": ("tf.image.random_brightness(tf.zeros([2, 2, 1]), -0.1)",
                                      {"match": ["max_delta must be non-negative."]}),
    "image_random/contrast_error": ("tf.image.random_contrast(tf.zeros([2, 2, 1]), 0.5, 0.5)",
                                    {"match": ["upper must be > lower."]}),
    # gradients
    "image_grad/resize_bilinear": _grad("tf.image.resize(v, [3, 11])"),
    "image_grad/resize_nearest": _grad("tf.image.resize(v, [8, 4], 'nearest')"),
    "image_grad/resize_kernels": (_grad("tf.image.resize(v, [3, 4], 'lanczos3', "
                                        "antialias=True) + tf.image.resize(v, [3, 4], "
                                        "'bicubic')"), {"rtol": 4}),
    "image_grad/ssim": (_grad("tf.image.ssim(v, v * 0.5 + 0.25, 1.0, filter_size=3)"),
                        {"rtol": 10, "atol": 10}),
    "image_grad/sobel_yuv": _grad("tf.image.sobel_edges(tf.image.rgb_to_yuv(v))"),
    # the offsets are texflow's own numbers: compare what does not depend on them
    "image_grad/random_crop": _grad("tf.image.stateless_random_crop(v, [2, 3, 4, 3], [1, 1])")
                              .replace("t.gradient(s, v)", "g = t.gradient(s, v)\n"
                                       "(tf.reduce_sum(g), tf.math.count_nonzero(g), "
                                       "tf.reduce_max(g))"),
    # TensorFlow's RGBToHSV gradient, away from ties between channels (its rule at grey
    # pixels is its own; texflow's comes from where and max); AdjustHue and AdjustSaturation
    # have none in TensorFlow
    "image_grad/rgb_to_hsv": (_grad("tf.image.rgb_to_hsv(v)"), {"rtol": 10, "atol": 10}),
    "image_grad/crop_and_resize": "v = tf.Variable(tf.reshape(tf.range(2 * 4 * 5 * 2, "
                                  "dtype=tf.float32), [2, 4, 5, 2]) ** 1.5)\n"
                                  "b = tf.Variable([[0.2, 0.1, 0.7, 0.9], [0.0, -0.2, 0.6, 1.0]])"
                                  "\nwith tf.GradientTape() as t:\n"
                                  "    y = tf.image.crop_and_resize(v, b, [1, 0], [3, 4])\n"
                                  "    s = tf.reduce_sum(y * tf.reshape(tf.range(48.0) % 5.0, "
                                  "[2, 3, 4, 2]))\nt.gradient(s, [v, b])",
    "image_grad/patches_ms_ssim": (_grad("tf.concat([tf.reshape(tf.image.extract_patches(v, "
                                         "[1, 2, 3, 1], [1, 2, 1, 1], [1, 1, 2, 1], 'SAME'), "
                                         "[-1]), tf.image.ssim_multiscale(v, v * 0.5 + 0.25, "
                                         "1.0, (0.5, 0.5), filter_size=2)], 0)"),
                                   {"rtol": 10, "atol": 10}),
    "image_grad/geometry": _grad("tf.concat([tf.image.rot90(v[:, :, :5], 1), "
                                 "tf.image.flip_left_right(v[:, :, :5]), "
                                 "tf.image.crop_to_bounding_box(v, 0, 1, 5, 5)], 1)"),
    "image_grad/pad_transpose": _grad("tf.image.transpose(tf.image.resize_with_crop_or_pad("
                                      "v, 3, 9))"),
    "image_grad/standardization": (_grad("tf.image.per_image_standardization(v)"),
                                   {"rtol": 10, "atol": 10}),
    # TensorFlow has no gradient for ResizeArea and AdjustContrastv2 (LookupError); texflow's
    # are checked against finite differences in tests/backend/test_image.py
    "image_grad/brightness_gamma": (_grad("tf.image.adjust_gamma(tf.image.adjust_brightness("
                                          "v, 0.5), 2.0, 0.5)"), {"rtol": 4}),
    "image_grad/psnr": (_grad("tf.image.psnr(v, v * 0.5 + 0.25, 1.0)"), {"rtol": 10}),
    "image_grad/grayscale": _grad("tf.image.rgb_to_grayscale(v)"),
}
