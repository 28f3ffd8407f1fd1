//! Philox-4x32-10 (Salmon et al., SC'11): a counter-based generator, so any element's random bits depend only on
//! (seed, index) and every backend produces the same bits. `shaders/create.wgsl` implements the same rounds.

const M0: u32 = 0xD251_1F53;
const M1: u32 = 0xCD9E_8D57;
const W0: u32 = 0x9E37_79B9;
const W1: u32 = 0xBB67_AE85;

fn mulhilo(a: u32, b: u32) -> (u32, u32) {
    let p = (a as u64) * (b as u64);
    ((p >> 32) as u32, p as u32)
}

/// Four 32-bit random words for `counter` under `key`.
pub fn philox4x32(counter: [u32; 4], key: [u32; 2]) -> [u32; 4] {
    let (mut c, mut k) = (counter, key);
    for _ in 0..10 {
        let (hi0, lo0) = mulhilo(M0, c[0]);
        let (hi1, lo1) = mulhilo(M1, c[2]);
        c = [hi1 ^ c[1] ^ k[0], lo1, hi0 ^ c[3] ^ k[1], lo0];
        k = [k[0].wrapping_add(W0), k[1].wrapping_add(W1)];
    }
    c
}

/// The random word for element `i` of a stream: element i uses word i%4 of the block for counter i/4, so a tensor
/// of n elements consumes ⌈n/4⌉ blocks. `offset` (in blocks) separates successive draws from one seed.
pub fn word(seed: u64, offset: u64, i: u64) -> u32 {
    let block = offset + i / 4;
    let ctr = [block as u32, (block >> 32) as u32, 0, 0];
    philox4x32(ctr, [seed as u32, (seed >> 32) as u32])[(i % 4) as usize]
}

/// A uniform float in [0, 1) from a random word, exactly as torch builds one: 24 random bits times 2^-24.
pub fn uniform(w: u32) -> f32 {
    uniform_digits(w, 24)
}

/// A uniform float in [0, 1) from the low `digits` (≤ 24) bits of a word: exact in f32.
pub fn uniform_digits(w: u32, digits: u32) -> f32 {
    (w & ((1u32 << digits) - 1)) as f32 / (1u32 << digits) as f32
}
