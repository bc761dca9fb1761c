// Reduction bodies: `red_<name>(acc, value)` combines two partial results, and
// `better_<name>(value, best)` says whether argmax/argmin should move to `value`.
// NaN wins (numpy): it propagates through max/min, and the first NaN is the arg.

float red_sum(float a, float b) { return a + b; }
int red_sum(int a, int b) { return a + b; }

float red_max(float a, float b) { return op_maximum(a, b); }
int red_max(int a, int b) { return max(a, b); }

float red_min(float a, float b) { return op_minimum(a, b); }
int red_min(int a, int b) { return min(a, b); }

bool better_max(float v, float best) { return f_isnan(v) ? !f_isnan(best) : v > best; }
bool better_max(int v, int best) { return v > best; }

bool better_min(float v, float best) { return f_isnan(v) ? !f_isnan(best) : v < best; }
bool better_min(int v, int best) { return v < best; }

float red_prod(float a, float b) { return a * b; }
int red_prod(int a, int b) { return a * b; }
