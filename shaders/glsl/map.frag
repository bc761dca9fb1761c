${head}

${functions}

// One output element from its inputs' elements (in their storage types).
${lane}
${decls}
void main() {
  int t = out_texel();
  int base = t << 2;
${loads}
${store}
}
