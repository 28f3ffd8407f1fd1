// The split-K pipeline, for a long K with few outputs (where tiles would leave most of the GPU idle): a workgroup
// owns a 4x4 output tile and splits K into 8 contiguous slices, one per group of 16 invocations. Each invocation
// sums its slice in order; then each output adds its 8 slice sums in slice order. The split is fixed by K alone,
// so the result is deterministic (no atomics, no second pass).
// @inputs a b
// @uses matmul
// @uses matmul_load

@group(0) @binding(9) var<storage, read_write> out: array<u32>;

var<workgroup> part: array<f32, 128>;

@compute @workgroup_size(128)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(local_invocation_index) li: u32) {
    let m = info.extra.x;
    let n = info.extra.y;
    let k = info.extra.z;
    let batch = wid.z;
    let o = operands(batch);
    let slot = li % 16u;
    let r = wid.y * 4u + slot / 4u;
    let c = wid.x * 4u + slot % 4u;
    let chunk = (k + 7u) / 8u;
    let k0 = (li / 16u) * chunk;
    let k1 = min(k, k0 + chunk);
    var acc = 0.0;
    if (r < m && c < n) {
        for (var kk = k0; kk < k1; kk = kk + 1u) {
            acc = acc + a_at(o, r, kk) * b_at(o, kk, c);
        }
    }
    part[li] = acc;
    workgroupBarrier();
    if (li < 16u && r < m && c < n) {
        var s = part[li];
        for (var j = 1u; j < 8u; j = j + 1u) {
            s = s + part[li + 16u * j];
        }
        out[batch * m * n + r * n + c] = bitcast<u32>(s);
    }
}
