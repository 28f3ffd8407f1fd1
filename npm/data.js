// vkml.data for JavaScript: torch's TensorDataset and DataLoader. Batches come out of an async iterator
// (`for await (const [x, y] of loader)`), as reading indices and shuffles from the device is asynchronous here;
// shuffling draws vkml.randperm, so it follows vkml.manual_seed.

export function makeData(vkml) {
  class TensorDataset {
    /** Tensors that share their first dim: item i is [t[i] for each tensor]. */
    constructor(...tensors) {
      if (tensors.length === 0) throw new TypeError("TensorDataset needs at least one tensor");
      const n = tensors[0].shape[0];
      if (tensors.some((t) => t.shape[0] !== n)) throw new RangeError("Size mismatch between tensors");
      this.tensors = tensors;
    }
    get length() {
      return this.tensors[0].shape[0];
    }
    /** The samples at `indices`, each tensor's rows gathered at once: one batch, already collated. */
    async getItems(indices) {
      const ids = BigInt64Array.from(indices, (i) => BigInt(i));
      return Promise.all(this.tensors.map((t) => t.index_select(0, vkml.tensor(ids, { device: t.device }))));
    }
    async get(i) {
      return (await this.getItems([i])).map((t) => t.squeeze(0));
    }
  }

  /** torch's default_collate: tensors stack on a new first dim; numbers become a tensor; arrays and objects per field. */
  function default_collate(batch) {
    const first = batch[0];
    if (first instanceof vkml.Tensor) return vkml.stack(batch, 0);
    if (typeof first === "number") return vkml.tensor(batch);
    if (Array.isArray(first)) return first.map((_, k) => default_collate(batch.map((s) => s[k])));
    if (first && typeof first === "object") {
      return Object.fromEntries(Object.keys(first).map((k) => [k, default_collate(batch.map((s) => s[k]))]));
    }
    return batch;
  }

  class DataLoader {
    constructor(dataset, options = {}) {
      const { batch_size = 1, shuffle = false, sampler, batch_sampler, drop_last = false, collate_fn } = options;
      if (sampler !== undefined && shuffle) throw new RangeError("sampler option is mutually exclusive with shuffle");
      if (batch_sampler !== undefined && (batch_size !== 1 || shuffle || sampler !== undefined || drop_last)) {
        throw new RangeError(
          "batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and drop_last",
        );
      }
      if (batch_sampler === undefined && !(Number.isInteger(batch_size) && batch_size >= 1)) {
        throw new RangeError(`batch_size should be a positive integer value, but got batch_size=${batch_size}`);
      }
      Object.assign(this, { dataset, batch_size, shuffle, sampler, batch_sampler, drop_last, collate_fn });
    }
    get length() {
      if (this.batch_sampler !== undefined) return [...this.batch_sampler].length;
      const n = this.sampler !== undefined ? [...this.sampler].length : this.dataset.length;
      return this.drop_last ? Math.floor(n / this.batch_size) : Math.ceil(n / this.batch_size);
    }
    async *_batches() {
      if (this.batch_sampler !== undefined) {
        yield* [...this.batch_sampler].map((b) => [...b]);
        return;
      }
      let order;
      if (this.sampler !== undefined) order = [...this.sampler];
      else if (this.shuffle) order = Array.from(await vkml.randperm(this.dataset.length).data(), Number);
      else order = Array.from({ length: this.dataset.length }, (_, i) => i);
      for (let start = 0; start < order.length; start += this.batch_size) {
        const idx = order.slice(start, start + this.batch_size);
        if (this.drop_last && idx.length < this.batch_size) return;
        yield idx;
      }
    }
    async *[Symbol.asyncIterator]() {
      for await (const idx of this._batches()) {
        if (this.collate_fn === undefined && this.dataset.getItems) yield await this.dataset.getItems(idx);
        else yield (this.collate_fn ?? default_collate)(await Promise.all(idx.map((i) => this.dataset.get(i))));
      }
    }
  }
  return { TensorDataset, DataLoader, default_collate };
}
