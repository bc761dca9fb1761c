${head}

// One pass (block uK, distance uJ) of a bitonic sort of each row of x [rows, uN],
// padded to uP (a power of two) with positions >= uN that sort after everything. Each
// element is an index into its row of x (input 1, [rows, uP]; on the first pass, its
// own position); the output row holds uOutN of them (uP, or uN on the last pass).
uniform int uN;
uniform int uP;
uniform int uOutN;
uniform int uK;
uniform int uJ;
uniform int uDesc;

// -1, 0 or 1 as a is before, tied with or after b; NaN is the largest value.
int order(float a, float b) {
  bool na = f_isnan(a);
  bool nb = f_isnan(b);
  if (na || nb) return na == nb ? 0 : (na ? 1 : -1);
  return a < b ? -1 : (a > b ? 1 : 0);
}
int order(int a, int b) { return a < b ? -1 : (a > b ? 1 : 0); }

// Whether index a of `row` sorts before index b: by value (reversed when descending),
// ties and padding by index.
bool before(int row, int a, int b) {
  if (a >= uN || b >= uN) return a < b;
  int c = order(get0(row * uN + a), get0(row * uN + b));
  if (uDesc == 1) c = -c;
  return c < 0 || (c == 0 && a < b);
}

int index_at(int row, int i) {
  return ${index};
}

int lane(int o) {
  int row = o / uOutN;
  int i = o - row * uOutN;
  int l = i ^ uJ;
  int a = index_at(row, i);
  int b = index_at(row, l);
  bool b_first = before(row, b, a);
  // the lower position of an ascending block takes the first of the pair
  bool take_first = (i < l) == ((i & uK) == 0);
  return take_first == b_first ? b : a;
}

void main() {
  int o = out_texel() << 2;
  outValue = ivec4(lane(o), lane(o + 1), lane(o + 2), lane(o + 3));
}
