// Type declarations for the npm package `vkml`. The engine's own classes and functions come from wasm-bindgen's
// generated declarations (pkg/vkml_web.d.ts); this file adds what index.js, nn.js and optim.js define.
// TypeScript: the `lib` option needs `esnext.disposable` (or `esnext`), as wasm-bindgen's classes declare
// `Symbol.dispose`.
import {
  Tensor, ProfileSession, type DescribedTorch, type DescribedFunctional, type DescribedModules,
} from "./pkg/vkml_web.js";

export {
  ProfileSession, Tensor, manual_seed, no_grad, is_grad_enabled, init_webgpu, best_device, devices, load_safetensors,
  load, set_eager, is_eager, stats, memory_stats, memory_allocated, max_memory_allocated, memory_reserved,
  reset_peak_memory_stats, empty_cache,
} from "./pkg/vkml_web.js";

type Operand = Tensor | number | boolean;
type TensorOptions = { device?: string; dtype?: string };
type Data = number | boolean | ArrayLike<number> | ArrayLike<bigint> | Data[] | ArrayBufferView;

export declare function tensor(data: Data, options?: TensorOptions & { shape?: number[]; requires_grad?: boolean }): Tensor;
export declare function zeros(shape: number[], options?: TensorOptions): Tensor;
export declare function ones(shape: number[], options?: TensorOptions): Tensor;
export declare function full(shape: number[], value: number, options?: TensorOptions): Tensor;
export declare function rand(shape: number[], options?: TensorOptions): Tensor;
export declare function randn(shape: number[], options?: TensorOptions): Tensor;
export declare function arange(start: number, end: number, step?: number, options?: TensorOptions): Tensor;
export declare function linspace(start: number, end: number, steps: number, options?: TensorOptions): Tensor;
export declare function eye(n: number, m?: number, options?: TensorOptions): Tensor;

// What index.js adds to the engine's Tensor class.
declare module "./pkg/vkml_web.js" {
  interface Tensor {
    // The reductions over every element when no dim is given (the engine's declarations type dim as required).
    sum(dim?: number | number[] | null, keepdim?: boolean): Tensor;
    mean(dim?: number | number[] | null, keepdim?: boolean): Tensor;
    amax(dim?: number | number[] | null, keepdim?: boolean): Tensor;
    amin(dim?: number | number[] | null, keepdim?: boolean): Tensor;
    all(dim?: number | number[] | null, keepdim?: boolean): Tensor;
    any(dim?: number | number[] | null, keepdim?: boolean): Tensor;
    logsumexp(dim: number | number[], keepdim?: boolean): Tensor;
    squeeze(dim?: number | number[] | null): Tensor;
    add(other: Operand): Tensor;
    sub(other: Operand): Tensor;
    mul(other: Operand): Tensor;
    div(other: Operand): Tensor;
    maximum(other: Operand): Tensor;
    minimum(other: Operand): Tensor;
    eq(other: Operand): Tensor;
    ne(other: Operand): Tensor;
    lt(other: Operand): Tensor;
    le(other: Operand): Tensor;
    gt(other: Operand): Tensor;
    ge(other: Operand): Tensor;
    logical_and(other: Operand): Tensor;
    logical_or(other: Operand): Tensor;
    logical_xor(other: Operand): Tensor;
    bitwise_and(other: Operand): Tensor;
    bitwise_or(other: Operand): Tensor;
    bitwise_xor(other: Operand): Tensor;
    fmod(other: Operand): Tensor;
    remainder(other: Operand): Tensor;
    floor_divide(other: Operand): Tensor;
    atan2(other: Operand): Tensor;
    copysign(other: Operand): Tensor;
    hypot(other: Operand): Tensor;
    pow(other: Operand): Tensor;
    /** Python's `t[...]`: numbers, slice strings ("1:3", ":", "::2"), null (new axis), "...". */
    get(...items: (number | string | null)[]): Tensor;
    /** Python's `t[...] = value`. */
    set(items: (number | string | null)[] | number | string | null, value: Tensor | number | boolean): void;
    backward(gradient?: Tensor, options?: { retain_graph?: boolean }): void;
    /** Stable sorts: `[values, indices]`. */
    sort(dim?: number, options?: { descending?: boolean }): [Tensor, Tensor];
    argsort(dim?: number, options?: { descending?: boolean }): Tensor;
    topk(k: number, options?: { dim?: number; largest?: boolean }): [Tensor, Tensor];
    bernoulli(): Tensor;
    cumsum(dim: number): Tensor;
    cumprod(dim: number): Tensor;
    prod(dim?: number, keepdim?: boolean): Tensor;
    norm(p?: number | "fro", dim?: number, keepdim?: boolean): Tensor;
    /** Indexing by tensors (int32 or int64 indices): a device-computed index is checked at the next read. */
    gather(dim: number, index: Tensor): Tensor;
    scatter(dim: number, index: Tensor, src: Tensor | number): Tensor;
    scatter_add(dim: number, index: Tensor, src: Tensor): Tensor;
    index_select(dim: number, index: Tensor): Tensor;
    take_along_dim(indices: Tensor, dim?: number | null): Tensor;
  }
}

export declare function randint(low: number, high: number, shape: number[], options?: TensorOptions): Tensor;
export declare function randperm(n: number, options?: TensorOptions): Tensor;
export declare function normal(mean: number, std: number, shape: number[], options?: TensorOptions): Tensor;
export declare function empty(shape: number[], options?: TensorOptions): Tensor;
export declare function bernoulli(p: Tensor): Tensor;
/** Record the kernels and realizations `fn` causes; the session renders its table and Chrome trace. */
export declare function profile(fn: () => unknown | Promise<unknown>): Promise<ProfileSession>;

// The engine's described functions: declarations generated from the description (pkg/vkml_web.d.ts).
export declare const addmm: DescribedTorch["addmm"];
export declare const addcmul: DescribedTorch["addcmul"];
export declare const addcdiv: DescribedTorch["addcdiv"];
export declare const diagonal: DescribedTorch["diagonal"];
export declare const diag: DescribedTorch["diag"];
export declare const tril: DescribedTorch["tril"];
export declare const triu: DescribedTorch["triu"];
export declare const nan_to_num: DescribedTorch["nan_to_num"];
export declare function einsum(equation: string, operands: Iterable<Tensor>): Tensor;
export declare function backward(t: Tensor, gradient?: Tensor, options?: { retain_graph?: boolean }): void;
export declare function where(cond: Tensor, a: Tensor, b: Tensor): Tensor;
export declare function cat(tensors: Iterable<Tensor>, dim?: number): Tensor;
export declare function stack(tensors: Iterable<Tensor>, dim?: number): Tensor;
export declare function save_safetensors(obj: Record<string, Tensor>): Promise<Uint8Array>;
export declare function handle(t: Tensor | undefined): Tensor | undefined;

type Pair = number | [number, number];
type Reduction = { reduction?: "mean" | "sum" | "none" };

export declare class Module {
  training: boolean;
  /** Each layer types its own; a subclass defines what it takes and gives (torch types it `Callable[..., Any]`). */
  forward(...inputs: any[]): any;
  register_buffer(name: string, t: Tensor): void;
  named_children(): Iterable<[string, Module]>;
  children(): Module[];
  named_modules(prefix?: string): Iterable<[string, Module]>;
  modules(): Module[];
  named_parameters(prefix?: string): [string, Tensor][];
  parameters(): Tensor[];
  named_buffers(prefix?: string): [string, Tensor][];
  buffers(): Tensor[];
  train(mode?: boolean): this;
  eval(): this;
  zero_grad(): void;
  apply(fn: (m: Module) => void): this;
  to(device: string): this;
  state_dict(): Record<string, Tensor>;
  load_state_dict(
    sd: Record<string, Tensor> | Uint8Array | ArrayBuffer,
    options?: { strict?: boolean },
  ): { missing_keys: string[]; unexpected_keys: string[] };
}

/** A layer class: constructor arguments A, a forward typed F, and methods X of its own. */
type ModuleClass<A extends unknown[], F = (x: Tensor) => Tensor, X = {}> = new (...args: A) => Omit<Module, "forward"> &
  X & { forward: F };
/** torch's reset_parameters of the layers whose parameters the engine's layouts start. */
type Resets = { reset_parameters(): void };
/** BatchNorm's own, beside reset_parameters. */
type RunningStats = Resets & { reset_running_stats(): void };
type Loss<A extends unknown[]> = ModuleClass<A, (input: Tensor, target: Tensor) => Tensor>;
type RecurrentOptions = { num_layers?: number; bias?: boolean; batch_first?: boolean; dropout?: number;
  bidirectional?: boolean } & TensorOptions;
type AttentionCall = { key_padding_mask?: Tensor; need_weights?: boolean; attn_mask?: Tensor;
  average_attn_weights?: boolean; is_causal?: boolean };
/** The modules that apply one function with their arguments (the engine describes them: DescribedModules). */
type AppliedModules = { [K in keyof DescribedModules]: ModuleClass<DescribedModules[K]> };
export declare const nn: Omit<AppliedModules, "MaxPool2d"> & {
  Module: typeof Module;
  Parameter(t: Tensor, requires_grad?: boolean): Tensor;
  Sequential: ModuleClass<Module[]>;
  Linear: ModuleClass<[number, number, ({ bias?: boolean } & TensorOptions)?], (x: Tensor) => Tensor, Resets>;
  Conv1d: ModuleClass<[number, number, number, ({ stride?: number; padding?: number | "same" | "valid";
    dilation?: number; groups?: number; bias?: boolean } & TensorOptions)?], (x: Tensor) => Tensor, Resets>;
  Conv2d: ModuleClass<[number, number, Pair, ({ stride?: Pair; padding?: Pair | "same" | "valid"; dilation?: Pair;
    groups?: number; bias?: boolean } & TensorOptions)?], (x: Tensor) => Tensor, Resets>;
  ConvTranspose2d: ModuleClass<[number, number, Pair, ({ stride?: Pair; padding?: Pair; output_padding?: Pair;
    groups?: number; dilation?: Pair; bias?: boolean } & TensorOptions)?], (x: Tensor) => Tensor, Resets>;
  Upsample: ModuleClass<[{ size?: number | number[]; scale_factor?: number | number[];
    mode?: "nearest" | "linear" | "bilinear"; align_corners?: boolean }?]>;
  BatchNorm1d: ModuleClass<[number, ({ eps?: number; momentum?: number; affine?: boolean;
    track_running_stats?: boolean } & TensorOptions)?], (x: Tensor) => Tensor, RunningStats>;
  BatchNorm2d: ModuleClass<[number, ({ eps?: number; momentum?: number; affine?: boolean;
    track_running_stats?: boolean } & TensorOptions)?], (x: Tensor) => Tensor, RunningStats>;
  LayerNorm: ModuleClass<[number | number[], ({ eps?: number; elementwise_affine?: boolean; bias?: boolean }
    & TensorOptions)?], (x: Tensor) => Tensor, Resets>;
  GroupNorm: ModuleClass<[number, number, ({ eps?: number; affine?: boolean } & TensorOptions)?],
    (x: Tensor) => Tensor, Resets>;
  Hardtanh: ModuleClass<[min_val?: number, max_val?: number]>;
  Identity: ModuleClass<[]>;
  Softmax: ModuleClass<[number]>;
  LogSoftmax: ModuleClass<[number]>;
  Flatten: ModuleClass<[number?, number?]>;
  Dropout: ModuleClass<[number?]>;
  /** [values, indices] with return_indices. */
  MaxPool2d: ModuleClass<DescribedModules["MaxPool2d"], (x: Tensor) => Tensor | [Tensor, Tensor]>;
  Unflatten: ModuleClass<[number, number[]]>;
  ModuleList: ModuleClass<[Module[]?]>;
  ModuleDict: ModuleClass<[Record<string, Module>?]>;
  CrossEntropyLoss: Loss<[({ ignore_index?: number; label_smoothing?: number; weight?: Tensor } & Reduction)?]>;
  NLLLoss: Loss<[({ ignore_index?: number; weight?: Tensor } & Reduction)?]>;
  MSELoss: Loss<[Reduction?]>;
  L1Loss: Loss<[Reduction?]>;
  SmoothL1Loss: Loss<[({ beta?: number } & Reduction)?]>;
  HuberLoss: Loss<[({ delta?: number } & Reduction)?]>;
  BCELoss: Loss<[({ weight?: Tensor } & Reduction)?]>;
  BCEWithLogitsLoss: Loss<[({ weight?: Tensor; pos_weight?: Tensor } & Reduction)?]>;
  KLDivLoss: Loss<[{ reduction?: "mean" | "sum" | "none" | "batchmean"; log_target?: boolean }?]>;
  /** A device-computed index is checked at the next read (clamped into range meanwhile). */
  Embedding: ModuleClass<[number, number, { padding_idx?: number; device?: string; dtype?: string }?],
    (input: Tensor) => Tensor, Resets>;
  /** forward(input, h_0) gives [output, h_n]. */
  RNN: ModuleClass<[number, number, (RecurrentOptions & { nonlinearity?: "tanh" | "relu" })?],
    (input: Tensor, hx?: Tensor) => [Tensor, Tensor]>;
  /** forward(input, [h_0, c_0]) gives [output, [h_n, c_n]]. */
  LSTM: ModuleClass<[number, number, (RecurrentOptions & { proj_size?: number })?],
    (input: Tensor, hx?: [Tensor, Tensor]) => [Tensor, [Tensor, Tensor]]>;
  GRU: ModuleClass<[number, number, RecurrentOptions?], (input: Tensor, hx?: Tensor) => [Tensor, Tensor]>;
  /** forward(query, key, value, options) gives [output, weights] (weights undefined without need_weights). */
  MultiheadAttention: ModuleClass<[number, number, ({ dropout?: number; bias?: boolean; add_bias_kv?: boolean;
    add_zero_attn?: boolean; kdim?: number; vdim?: number; batch_first?: boolean } & TensorOptions)?],
    (query: Tensor, key: Tensor, value: Tensor, options?: AttentionCall) => [Tensor, Tensor | undefined]>;
  TransformerEncoderLayer: ModuleClass<[number, number, ({ dim_feedforward?: number; dropout?: number;
    activation?: "relu" | "gelu" | ((x: Tensor) => Tensor); layer_norm_eps?: number; batch_first?: boolean;
    norm_first?: boolean; bias?: boolean } & TensorOptions)?],
    (src: Tensor, options?: { src_mask?: Tensor; src_key_padding_mask?: Tensor; is_causal?: boolean }) => Tensor>;
  cross_entropy: DescribedFunctional["cross_entropy"];
  /** torch.nn.functional: the described functions (generated declarations) and those the package adds. */
  functional: DescribedFunctional & {
    relu(x: Tensor): Tensor;
    sigmoid(x: Tensor): Tensor;
    tanh(x: Tensor): Tensor;
    silu(x: Tensor): Tensor;
    mish(x: Tensor): Tensor;
    selu(x: Tensor): Tensor;
    logsigmoid(x: Tensor): Tensor;
    softsign(x: Tensor): Tensor;
    hardsigmoid(x: Tensor): Tensor;
    hardswish(x: Tensor): Tensor;
    relu6(x: Tensor): Tensor;
    /** With a class count: a Tensor at once (device values are checked at the next read). */
    one_hot(x: Tensor, num_classes: number): Tensor;
    /** The class count read from the values (also num_classes = -1): a Promise. */
    one_hot(x: Tensor): Promise<Tensor>;
    softmax(x: Tensor, dim: number): Tensor;
    log_softmax(x: Tensor, dim: number): Tensor;
    embedding(input: Tensor, weight: Tensor, options?: { padding_idx?: number }): Tensor;
  };
  init: {
    uniform_(t: Tensor, a?: number, b?: number): Tensor;
    normal_(t: Tensor, mean?: number, std?: number): Tensor;
    zeros_(t: Tensor): Tensor;
    ones_(t: Tensor): Tensor;
    constant_(t: Tensor, val: number): Tensor;
    calculate_gain(nonlinearity: string, param?: number): number;
    kaiming_uniform_(t: Tensor, options?: { a?: number; mode?: "fan_in" | "fan_out"; nonlinearity?: string }): Tensor;
    kaiming_normal_(t: Tensor, options?: { a?: number; mode?: "fan_in" | "fan_out"; nonlinearity?: string }): Tensor;
    xavier_uniform_(t: Tensor, gain?: number): Tensor;
    xavier_normal_(t: Tensor, gain?: number): Tensor;
  };
};

export declare class Optimizer {
  constructor(params: Iterable<Tensor>, options?: Record<string, unknown>);
  param_list: Tensor[];
  lr: number;
  /** The momentum a schedule cycles: SGD's and RMSprop's momentum, Adam's first beta (undefined for Adagrad). */
  momentum: number | undefined;
  step(): void;
  zero_grad(): void;
}

export declare class LRScheduler {
  optimizer: Optimizer;
  base_lrs: number[];
  last_epoch: number;
  step(): void;
  get_last_lr(): number[];
}

export declare const optim: {
  SGD: new (params: Iterable<Tensor>, options?: { lr?: number; momentum?: number; dampening?: number;
    weight_decay?: number; nesterov?: boolean; maximize?: boolean }) => Optimizer;
  Adam: new (params: Iterable<Tensor>, options?: { lr?: number; betas?: [number, number]; eps?: number;
    weight_decay?: number; amsgrad?: boolean; maximize?: boolean }) => Optimizer;
  AdamW: new (params: Iterable<Tensor>, options?: { lr?: number; betas?: [number, number]; eps?: number;
    weight_decay?: number; amsgrad?: boolean; maximize?: boolean }) => Optimizer;
  RMSprop: new (params: Iterable<Tensor>, options?: { lr?: number; alpha?: number; eps?: number;
    weight_decay?: number; momentum?: number; centered?: boolean; maximize?: boolean }) => Optimizer;
  Adagrad: new (params: Iterable<Tensor>, options?: { lr?: number; lr_decay?: number; weight_decay?: number;
    eps?: number; initial_accumulator_value?: number; maximize?: boolean }) => Optimizer;
  lr_scheduler: {
    LRScheduler: typeof LRScheduler;
    StepLR: new (optimizer: Optimizer, options: { step_size: number; gamma?: number }) => LRScheduler;
    MultiStepLR: new (optimizer: Optimizer, options: { milestones: number[]; gamma?: number }) => LRScheduler;
    ExponentialLR: new (optimizer: Optimizer, options: { gamma: number }) => LRScheduler;
    CosineAnnealingLR: new (optimizer: Optimizer, options: { T_max: number; eta_min?: number }) => LRScheduler;
    LambdaLR: new (optimizer: Optimizer, options: { lr_lambda: (epoch: number) => number }) => LRScheduler;
    OneCycleLR: new (optimizer: Optimizer, options: { max_lr: number; total_steps?: number; epochs?: number;
      steps_per_epoch?: number; pct_start?: number; anneal_strategy?: "cos" | "linear"; cycle_momentum?: boolean;
      base_momentum?: number; max_momentum?: number; div_factor?: number; final_div_factor?: number;
      three_phase?: boolean }) => LRScheduler;
  };
};

export declare class TensorDataset {
  constructor(...tensors: Tensor[]);
  readonly length: number;
  tensors: Tensor[];
  getItems(indices: number[]): Promise<Tensor[]>;
  get(i: number): Promise<Tensor[]>;
}

export declare class DataLoader<Batch = Tensor[]> {
  constructor(dataset: { length: number; get(i: number): Promise<unknown> }, options?: { batch_size?: number;
    shuffle?: boolean; sampler?: Iterable<number>; batch_sampler?: Iterable<Iterable<number>>; drop_last?: boolean;
    collate_fn?: (samples: unknown[]) => Batch });
  readonly length: number;
  [Symbol.asyncIterator](): AsyncIterator<Batch>;
}

export declare const data: {
  TensorDataset: typeof TensorDataset;
  DataLoader: typeof DataLoader;
  default_collate(batch: unknown[]): unknown;
};
