"""Verdicts on mutants that tools/mutate.py cannot reach by running tests: equivalent mutants (which cannot change
any output), understood survivors, and findings in unmutated kernels, each with its reason. Keys are mutate.py's
mutant keys (a hash of the file name, the line and the mutation), stable while the line is unchanged."""

# What the campaign's tests found in unmutated kernels, for the report (kept by hand: a finding is not a mutant).
FINDINGS = [
    "fdiv in shaders/binary.wgsl (division of f32) returns ±inf for a subnormal dividend and a normal divisor below"
    " 2⁻¹⁰⁴: its subnormal branch divides the dividend's integer significand (up to 2²³) by the divisor before"
    " scaling by 2⁻¹⁴⁹, and that quotient overflows (1e-40 / 1e-35 gives inf on lavapipe, 1e-5 on the oracle)."
    " Fixed in d62a375 (the divisor is scaled by 2⁶⁴ first); tests/tests/mutation_kill_binary.rs now checks those"
    " pairs.",
]

# Mutants that cannot change any output, by key, with the reason. Conservative: only what can be argued in one line.
_F32_LOADER = (
    "unreachable: no kernel reads an integer or bool input through the f32 loader (value_f runs for float inputs"
    " only; integer matmul is unsupported on Vulkan)"
)
_CLASS = "unreachable: every kernel gathers a buffer in its own dtype's class (where's bool condition as int64)"
_BOOL = "bool words are read only as word != 0 (loaders) or low byte != 0 (download): 2 reads as true"
_PAD = "fills only the unused upper half of an odd-length 16-bit output's last word"
_BOUNDARY = (
    "moves the subnormal branch's boundary by one input (2⁻¹²⁶ = 2²³·2⁻¹⁴⁹ exactly): both branches give the"
    " quotient with one rounding, within div's 2.5 ulp"
)
_PAST_END = (
    "lets the one invocation past the last output through: its store falls past the output's elements (into the"
    " buffer's 16-byte padding, or dropped by wgpu's bounds checks), where nothing reads"
)
_ONE_LANE = "every invocation reads the same part[0] after the tree's last barrier, so any lane that stores, stores it"
_SYMMETRIC = "min and fmul are symmetric"
_PADDING = "steps past K multiply the tiles' zero padding on both sides: 0·0 adds +0"
_SIXTEEN = (
    "m and n are multiples of 16 wherever the cooperative-matrix pipeline runs, so c0 + 17 < n and c0 + 16 < n"
    " (r0 and m alike) never differ"
)
_PREFETCH = (
    "the staged kernel's prefetch registers start at zero only for K = 0, whose loop never puts them; any other K"
    " loads them before the first put"
)
# The vector kernels (binary_flat, reduce_flat, softmax_flat, 2026-12-06).
_OVERLAP = "an invocation covers more vectors than the grid needs: the extra ones are its neighbours', same bytes"
_TAIL_COVERS = (
    "fewer vectors in the unrolled or the vector loop leave their elements to the next loop or to invocation 0's"
    " tail loop, which fold them in index order with their own indices (sums of the tests' small integers exact)"
)
_IDEMPOTENT = (
    "folds or merges an element or a partial a second time, with its own key and index: an extremum and its first"
    " index are unchanged"
)
_NEVER_WINS = "the empty partial's index: its key is below every element's, so it never reaches a tie"
EQUIVALENT: dict[str, str] = {
    # arith.wgsl.in (lavapipe, 2026-12-07)
    "620db3aca0": "sends the smallest normal, 2⁻¹²⁶, through the subnormal branch: countLeadingZeros gives a shift of"
    " 0, so m = 0x800000 and e = −126, the normal branch's values",
    "24acce7ad4": "sends e = −125 through ldexp(v, e + 64)·2⁻⁶⁴: for v in exp_core's range v·2⁻¹²⁵ is normal, so both"
    " forms are the exact product",
    "89c1219fbe": "block() returns −2 for no block: its callers test r < 0 and q < 0, which −2 passes as −1 does",
    "1242b5da4c": "block() returns −2 for no block: its callers test r < 0 and q < 0, which −2 passes as −1 does",
    "84ce2ba4d9": "a bool fold stores 2 for true: every reader takes a bool word's truth as nonzero (the loaders in"
    " load.wgsl.in, the host's read in backend-vulkan/src/buffer.rs)",
    "8d68ab8784": "sets .y of a bool fold's result: the bits driver stores .y for int64 outputs only",
    # matmul_coop_staged (judged on an H100, 2026-12-07)
    "38d39c6d78": _PREFETCH,
    "fd3f0ffb5f": _PREFETCH,
    "58d7f936db": "piece lid − 384 (wrapped) reaches last_b's value only through p % 4 (a k-contiguous b, the same"
    " residue as lid + 384) or p / 16 (a k-major b: rows 24 and on, past every K below 32, as the original's)",
    "5dff7c1534": "sends a step that ends exactly at K through the last step's loads, whose tests all pass inside K:"
    " the same values, more slowly",
    "65a8f2bd18": _SYMMETRIC,
    "117c16cc42": _OVERLAP,
    "6cf3e643c9": _OVERLAP,
    "c39abf94c7": _OVERLAP,
    "18c0e273c0": _OVERLAP,
    "82bc523411": "+inf then reaches log1p's last branch, log(1 + inf) through vkml's log, which returns +inf for +inf"
    " on every device (0x7f800001 is a NaN, caught by the test before it)",
    "adc08b08db": _TAIL_COVERS,
    "6654cf115c": _TAIL_COVERS,
    "d4d78db9c0": _TAIL_COVERS,
    "c718db7297": "invocation 1 instead of 0 folds the head and tail, with their own indices: the same sum of the"
    " tests' small integers and the same first extremum",
    "e4ca4d47fd": "two invocations' partials share an index only when both are empty, and then they are equal",
    "5ea89b0831": _NEVER_WINS,
    "8547fa4880": _IDEMPOTENT,
    "b1905c176a": _IDEMPOTENT,
    "60cbd9973b": "runs only where ah != bh, so ah < bh and ah <= bh agree",
    "9265362d74": "a capacity only: the vector grows as the runs are appended, to the same bytes",
    "fb0c3f8c9a": "|x| = 1 returned 1 two lines above, so ax > 1 and ax >= 1 agree here",
    "d8beb0d780": "WGSL takes a shift amount modulo 32, so y.y >> (i + 32) and y.y >> (i - 32) are the same shift",
    "82d7d26f18": "cmp gives None only for the bitwise ops, which the graph refuses for float operands before any"
    " kernel",
    "0a0bd8b340": "unreachable: an integer zero divisor raises torch's ZeroDivisionError in the graph before any"
    " kernel runs",
    "de32624b15": _SIXTEEN,
    "d22ad2dc87": "loads past K are never multiplied (the k loop stops at kmax), rows past m are never stored",
    "da529e3ac8": "loads b's column n, whose output is never stored",
    "d93dcdc2bd": _SYMMETRIC,
    "a18c9e8e24": _SYMMETRIC,
    "61d0880dff": _SYMMETRIC,
    "6f835e7bb8": _PADDING,
    "66489cae6b": _PADDING,
    "3b75c6f0ee": "accumulates outputs outside the matrix, which are never stored",
    "f1a4b216a7": "the driver's integer path is never taken: fused's float_class() is true",
    "74d9e7f46f": "runs the word past the program, 0: an Input(0) pushed above the result, which st[0] still holds",
    "cbee3cab40": "the driver's integer path is never taken: fused's float_class() is true",
    "c13133f762": "held's xor with info.extra2.w, 0 at run time, as an or: the same bits (the operation only hides each"
    " step's value from the compiler, which either does)",
    "bea3dd18b8": "two_prod is exact, so the order of its two cross terms cannot change the sum",
    "ef2700fac3": "|x| = 2⁻¹²⁴ over |y| > 2¹²⁶ is below 2⁻²⁵⁰: zero either way",
    "b466c852ae": "y = 2⁻⁶⁴ scaled by 2⁶⁴ or not: both exact, the same quotient",
    "1c9af64790": _ONE_LANE,
    "01e2a5bb06": _ONE_LANE,
    "b253d609d3": "a's padding rows past m are never stored, and its padding past K meets b's zero padding: 1·0 = 0·0",
    "ac2a46cf51": "beq is symmetric",
    "2b1763446a": "b2i feeds only comparisons, whose bool output store_i writes as value != 0",
    "7102d39fc6": "add64 is commutative",
    "cea34aebfd": "mul64 is commutative (mul32 and the two cross terms are symmetric)",
    "7bb22e1c97": "equal int64 values are the same bits, so which one is returned does not matter",
    "6b3e5f8100": "equal int64 values are the same bits, so which one is returned does not matter",
    "351c3e11ea": "only x = ±0 newly takes the branch, and neg64(0) = 0",
    "e57572afb3": _BOOL,
    "1b4943abff": _BOOL,
    "fe41dedf66": _PAD,
    "34893a04c8": _PAD,
    **dict.fromkeys(["f8a1e01c8a", "80015c7adf", "9a998fa41e", "f40799319e", "719e37c388", "cdf058fcdc"], _F32_LOADER),
    **dict.fromkeys(["9836c4d9a4", "0af150f666", "94fc0d7fdd", "f65bbab9d9"], _F32_LOADER),
    "93b054c312": "unreachable: value_i and reduce's integer path read only integer and bool inputs as int64",
    "cb655f9b3c": "movement, the only caller of the bits loader, uses .x alone for 16-bit dtypes",
    "bcb9a795dc": "movement, the only caller of the bits loader, uses .y only for int64",
    "06d2c3ac6b": "the extra tile at k0 = k has kmax = 0 and adds nothing",
    "1446546c5c": "padding entries (row ≥ m or k ≥ K) feed only rows that are not stored or products past kmax",
    "2a5db41795": "padding entries (k ≥ K or column ≥ n) are past kmax or in columns that are not stored",
    "d5ee9db13c": "the extra loads fill only tile entries that no stored output uses",
    "4504e023f2": "the caller treats every negative value as 'not under the target' (vi < 0)",
    "e5fa5d9e4a": "the caller treats every negative value as 'not under the target' (vi < 0)",
    "f22051c090": "the two indices compared are never equal (a fold against an earlier index, or two slots)",
    "a91755d8bf": "add64 is commutative",
    "2d02b86c49": "lid 0 performs the last tree step itself and then reads only what it wrote (run on a GPU anyway)",
    "4df9eb296a": "after the final barrier every invocation reads the same sf[0], si[0], sx[0], so the other 127 store"
    " what lid 0 would",
    "2035d9c6fd": "the carry of a + b is the same tested against either operand (s < a ⇔ s < b)",
    "0ec3af9616": "top ≥ 64 for every f32: no f32 lies within 2⁻⁶² turns of a multiple of π/2 (the guard's comment)",
    "f8a65b8940": "both branches give class(dtype): the condition picks I64 only when the class is already I64",
    "776027b666": _CLASS,
    "60724c8f4b": _CLASS,
    "38c9d04d79": "changes only the starting capacity of a Vec that grows as needed",
    "a95d1c650c": "every invocation gets tree_combine's total (it reads tree[0] after the last barrier), so any lane"
    " that stores, stores it",
    "1e2937f7fd": "every invocation gets tree_combine's total (it reads tree[0] after the last barrier), so any lane"
    " that stores, stores it",
    "388bf1cb59": _IDEMPOTENT,
    "69a81edd35": _IDEMPOTENT,
    "e77931cb09": "the search visits tap 0 first, and tap 0 beats its own value held under index 1 (ties go to the"
    " lower index, and a NaN beats a NaN of a higher index), so best is 0 again before any other tap",
}
_OOB = (
    "adds one store past the output, which robust buffer access drops (lavapipe); a GPU without it could write"
    " past the buffer"
)
_EDGE = "moves a branch boundary by one input, where both branches agree within the op's tolerance"
_TALL_GRID = "differs only in a grid's second row, past 65,535 workgroups (2²⁸ elements), beyond the tests' inputs"
# Why a survivor survives, where it is understood but is not an equivalent mutant (shown in the report).
SURVIVOR_NOTES: dict[str, str] = {
    "f23d488ccd": "drops div_bits's +1 step after the jump, which a correctly rounded division (lavapipe's) never"
    " needs: the remainder is exact in f32 and its ratio to the divisor lies at least 1/(2d) > 2⁻²⁵ past a half,"
    " so round() already lands there. A looser division (Vulkan allows 2.5 ulp; an H100's is not correctly rounded)"
    " can round the ratio to the half: judge it on such a GPU",
    "3751bfb7a3": "changes log_core's s¹¹ coefficient from 1/11 to 1/21: at most 4·10⁻¹⁰ of log(m) at |s| = 0.172,"
    " under half an ulp of the result, so it shows only at a rounding tie, within log's 5 ulp",
    "85841df15e": "changes only the address of a load whose value select discards (the piece lies past K): what the"
    " original keeps is that load inside a, which no output shows",
    "33ecd52b74": "moves the loads of the column tiles past n, whose products are never stored, further out: what"
    " the clamp keeps is that every load stays inside b, which no output shows",
    "b3e532a0df": _OOB,
    "94df5d7cde": "invocation 1 instead of 0 adds the head and tail: the same terms in another fixed order, within"
    " sum's contract (and exact for the tests' small integers)",
    "08c0d51db8": _OOB,
    "aff3f60687": _OOB,
    "78b7e05144": _OOB,
    "c80a9abaf5": _OOB,
    "31802712ea": _OOB,
    "42cdb6da64": _OOB,
    "76b934e250": _OOB,
    "8cb752c61f": _TALL_GRID,
    "cf9820a85b": _TALL_GRID,
    "72d40a40a9": "changes the scaled divisor by 1 ulp on the huge-divisor path: within div's 2.5 ulp",
    "6855b6cc72": _BOUNDARY,
    "b9da84ab3e": _BOUNDARY,
    "12f515b3b8": "sends the smallest subnormal dividend through the plain division, which may flush it (div's"
    " gpu_ftz)",
    "f819dc6c61": "at k = −126 both scalings are exact down to the subnormals; they differ only in where a subnormal"
    " result may flush, which pow's gpu_ftz allows",
    "2fa91d51b1": "moves one table entry's low part by 10⁻⁹: at most 2.5·10⁻⁷ relative where |y·log2 x| ≤ 128, about"
    " the contract's 2 ulp at the extreme, and inside it for the tests' inputs",
    "93f965611e": "the r.x·r.y term of the square is below 2⁻³⁰ of log2(1 + r): tripling it moves no result by an ulp",
    "5ab6940cd1": _PAST_END,
    "1bcd145c97": _PAST_END,
    "99ebdb7c97": "cuts K into other contiguous slices; every k is still summed once, in order within its slice:"
    " another grouping of the same sum, within matmul's backward contract (and exact for the integer tests)",
    "0cd3753038": "slice 0 sums all of K in order and the other slices nothing: the same sum grouped otherwise,"
    " within matmul's backward contract",
    "de23d6b7e5": "sends [2²⁴, 2²⁵) through WGSL's u32 → f32 conversion, which lavapipe rounds to nearest even like"
    " the software path; only a GPU that truncates would tell",
    "416e2f1b62": _OOB,
    "16b98ec453": _OOB,
    "bbe378c7f3": _OOB,
    "6f835e7bb8": "adds 0·0 products, which can change only the sign of a zero result; matmul's contract compares"
    " values",
    "d7d5507ea5": "moves a bit 2⁻⁶⁴ turns down in the reduced argument: visible only at an f32 rounding tie",
    "e9a1586b23": "rounds the reduced argument up by 2 units instead of 1: 1 ulp, within sin/cos/tan's bounds",
    "c69e2ab8a1": _EDGE,
    "78e7a2bcf0": _EDGE,
    "15e57c3564": _EDGE,
    "dc661f6643": "the series' last coefficient: s¹⁶/17 is below 2⁻²⁹ of log1p's result (|s| ≤ 1/3), so 1/27 for 1/17"
    " moves a result by a fraction of an ulp, within log1p's bound",
    "f7c10e5083": _EDGE,
    "192ffad2f3": _EDGE,
    "05b2e1df3c": _EDGE,
    "863a2b273c": _EDGE,
    "6851b53640": "+inf then reaches the log builtin, which lavapipe evaluates to +inf (WGSL lets a GPU assume"
    " finite inputs)",
    "b2b1474b74": "+inf then reaches the inverseSqrt builtin, which lavapipe evaluates to 0 (WGSL lets a GPU assume"
    " finite inputs)",
    "41cbb69b32": "moves only 2⁻¹²⁶ to the subnormal path: both paths take inverseSqrt of a power of four (2²⁴, then"
    " scaled by 2⁷⁵, or 2⁻¹²⁶) and give 2⁶³ within rsqrt's bound",
    "f0d16d497d": "sends [2²⁴, 2²⁵) through WGSL's u32 → f32 conversion, which lavapipe rounds to nearest even like"
    " the software path; only a GPU that truncates would tell",
    "4afc28b5bf": "sends (−3.15·10⁹, −2³¹) to i32(trunc(x)), which WGSL defines to saturate at −2³¹: the same"
    " result on a conforming GPU",
    "1eb11a46c5": "gives 2⁻¹⁴⁹ for 0^y (y > 0) and inf^y (y < 0): one ulp from 0, inside pow's 2-ulp bound, which a"
    " value test cannot tell apart",
    "14b233defc": "+inf then reaches the exp builtin, which lavapipe evaluates to +inf (WGSL lets a GPU assume"
    " finite inputs)",
    "0d115b8218": "floor of ±0 and subnormals goes to the builtin, exact on lavapipe; a flushing GPU's floor(−tiny)"
    " = −0 is what gpu_ftz allows",
}

# Survivors that are races rather than missing tests: a test sees them only when the scheduler interleaves the wrong
# way, which lavapipe rarely does. mutate.py reports them as races and --export-races sends them to a real GPU.
RACES: dict[str, str] = {
    "4b545c18f3": "a subgroup puts the next slices while another still loads the last step's tiles: survived one run"
    " of the forced tests on an H100 (2026-12-07), killed in the 20th of twenty later runs",
    "d364b473d0": "subgroups load tiles other subgroups may not have put yet: survived one run of the forced tests on"
    " an H100 (2026-12-07), killed in the 3rd of twenty later runs",
    "0f4dc73645": "lane 0 reads sums[0] without the barrier after the tree's last step, racing lane 1's write of"
    " sums[1] into it: lavapipe's lockstep workgroups hide it",
    "27c839cd3f": "lane 0 reads bests[0] without the barrier after the tree's last step, racing lane 1's write of"
    " bests[1] into it: lavapipe's lockstep workgroups hide it",
    "68518c9afb": "lane s also folds part[2s] (past the array at s = 64) into part[s] while lane 0 reads part[s]: a"
    " race that lavapipe's lockstep workgroups hide",
    "4d75ae4440": "a write-write race across workgroups: batch b's padded row m lands on batch b + 1's first row,"
    " which that batch's own workgroup usually rewrites later (killed in one lavapipe run, survived in another)",
}
