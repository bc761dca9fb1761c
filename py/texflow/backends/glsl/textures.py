"""Physical texture layout of NDArray data, and the bounded texture pool.

Layout. An array of `size` elements is stored flat (row-major, like its host
copy) in one RGBA texture, four consecutive elements per texel: RGBA32F for
float32, RGBA32I for int32 and bool (0/1), so integers are exact. Texel `t`
sits at (t & (w - 1), t >> log2(w)) with the width `w` a power of two, so the
flat-index -> texel arithmetic is a mask and a shift, a reshape is free (the
flat order never changes) and an array can hold up to 4 * 8192 * 8192
elements whatever its dimensions. Textures are near-square rather than one
long row because SwiftShader (and real GPUs) shade 2x2 pixel quads: a
1-pixel-high render target would leave half of every quad idle.

The width depends only on the power of two above the texel count, so two
arrays of equal size always have equal widths and an elementwise kernel can
read its inputs at its own fragment's coordinate. The height is rounded up
to one of about eight buckets per power of two (under 1/8 waste), so arrays
of similar sizes share pooled textures.

Pool. Freed textures go to free lists keyed by (width, height, is_int) and
are handed out again for the same key. The pool is bounded by bytes and by
count: beyond either cap the least recently freed texture is deleted, so
10,000 ops on ever-changing shapes cannot grow memory without limit.
"""

from ...errors import BackendError
from ..parking import Parking

MAX_WIDTH = 8192
MAX_ELEMENTS = 4 * MAX_WIDTH * MAX_WIDTH


class Tex:
    """One texture: its JS id and physical shape. `key` is its pool key: (width, height,
    is_int), or (width, height, is_int, layers) for a texture array (`layers`, each
    laid out as above: a kernel's several render targets, matmul.py)."""

    __slots__ = ("id", "w", "shift", "h", "is_int", "key", "nbytes")

    def __init__(self, tex_id, key):
        self.id = tex_id
        self.w, self.h, self.is_int = key[:3]
        self.shift = self.w.bit_length() - 1
        self.key = key
        self.nbytes = self.w * self.h * 16 * (key[3] if len(key) > 3 else 1)


_layouts = {}


def layout(size, is_int):
    """The pool key (width, height, is_int) of a texture holding `size` elements."""
    key = _layouts.get((size, is_int))
    if key is not None:
        return key
    if not 0 < size <= MAX_ELEMENTS:
        raise BackendError(f"a WebGL texture holds 1 to {MAX_ELEMENTS} elements "
                           f"(4 x {MAX_WIDTH} x {MAX_WIDTH}); received an array of {size}")
    texels = (size + 3) >> 2
    p = (texels - 1).bit_length()          # texels <= 2**p
    w = 1 << ((p + 1) // 2)
    rows = -(-texels // w)
    step = max(1, (1 << (p // 2)) >> 3)    # ~8 height buckets per power of two
    h = min(MAX_WIDTH, -(-rows // step) * step)
    key = (w, h, is_int)
    if len(_layouts) > 50000:
        _layouts.clear()
    _layouts[(size, is_int)] = key
    return key


def rows_used(size, w):
    """How many texel rows of a width-`w` texture `size` elements occupy."""
    return -(-((size + 3) >> 2) // w)


class TexturePool:
    """Creates, recycles and deletes textures through the JS runtime `js`.

    Args:
        js: the `texflowWebGL` object (createTexture, deleteTexture).
        max_bytes: the most bytes of freed textures kept for reuse.
        max_count: the most freed textures kept for reuse.
    """

    def __init__(self, js, max_bytes=256 << 20, max_count=4096):
        self._create = js.createTexture
        self._delete = js.deleteTexture
        self.max_bytes = max_bytes
        self.max_count = max_count
        self.free_lists = {}   # key -> [Tex], most recently freed last
        self.order = {}        # Tex -> None, least recently freed first (dicts keep order)
        self.pooled_bytes = 0
        self.in_use = 0
        # launch programs' arenas kept between replays (backends/parking.py)
        self.parking = Parking(self.release, lambda tex: tex.nbytes)
        self.park = self.parking.park
        self.unpark = self.parking.unpark

    def acquire(self, key):
        """A texture of pool key `key`, recycled when one is free."""
        stack = self.free_lists.get(key)
        if not stack and self.parking.held and self.parking.reclaim():
            stack = self.free_lists.get(key)
        self.in_use += 1
        if stack:
            tex = stack.pop()
            del self.order[tex]
            self.pooled_bytes -= tex.nbytes
            return tex
        return Tex(self._create(*key), key)

    def acquire_as(self, key, want):
        """A texture of pool key `key` (`want`, one a launch program had, is not looked
        for: WebGL has no bind groups to keep)."""
        return self.acquire(key)

    def release(self, tex):
        """Returns `tex` to the pool, deleting the oldest pooled textures beyond the caps."""
        self.in_use -= 1
        self.free_lists.setdefault(tex.key, []).append(tex)
        self.order[tex] = None
        self.pooled_bytes += tex.nbytes
        if self.pooled_bytes > self.max_bytes or len(self.order) > self.max_count:
            self._evict()

    def _evict(self):
        while self.order and (self.pooled_bytes > self.max_bytes
                              or len(self.order) > self.max_count):
            oldest = next(iter(self.order))
            del self.order[oldest]
            self.free_lists[oldest.key].remove(oldest)
            self.pooled_bytes -= oldest.nbytes
            self._delete(oldest.id)

    def clear(self):
        """Deletes every pooled texture."""
        self.parking.reclaim()
        saved = self.max_count
        self.max_count = 0
        self._evict()
        self.max_count = saved

    def info(self):
        parked = self.parking
        return {"num_gpu_objects": self.in_use - parked.count,
                "num_pooled_gpu_objects": len(self.order) + parked.count,
                "pooled_bytes": self.pooled_bytes + parked.nbytes,
                "pool_limit_bytes": self.max_bytes}
