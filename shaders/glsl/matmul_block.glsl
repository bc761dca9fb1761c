// Blocked (K % 4 == 0, N % 4 == 0): the fragment computes the ${R} x 4 block of rows
// i0 .. i0 + ${R} - 1, columns j..j+3, and writes row i0 + r to render target r. Per
// four k: ${R} texels of A (or, A given transposed, the texels of its rows k..k+3 at
// columns i0..) and four of B feed ${R} x 16 multiply-adds. A later pass
// (matmul_unblock.frag) interleaves the targets into C's flat layout.
uniform int uMb;

void main() {
  ivec2 off, kr;
  int ib, j;
  locate(out_texel() << 2, uMb, off, ib, j, kr);
  int i0 = ib * ${R};
  int steps = (kr.y - kr.x) >> 2;
${a_setup}
${b_setup}
${acc_decl}
${loops}
${write}
}
