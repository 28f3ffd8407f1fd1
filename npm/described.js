// The functions the engine describes once (`_described()`), placed in torch's namespaces: the tensors first, then
// the required arguments, the optional tensors and the options in torch's order, positionally or as one object
// (JavaScript's keywords), so `F.elu(x, 0.5)` and `F.elu(x, { alpha: 0.5 })` are torch's `F.elu(x, 0.5)` and
// `F.elu(x, alpha=0.5)`. A row of torch's Tensor namespace is a function of `torch` and a method of Tensor, its
// first tensor the method's own.

/** Binds `rest` (the arguments after a call's tensors) to `names`, positionally and by a trailing plain object (by
 * name), as Python binds keywords: `{name: value}` of those given, or torch's TypeError naming `name`'s problem. */
export function bindArgs(name, names, rest, isOptions, skipped = 0) {
  rest = [...rest];
  const given = rest.length > 0 && isOptions(rest.at(-1)) ? { ...rest.pop() } : {};
  for (const key of Object.keys(given)) {
    if (!names.includes(key)) throw new TypeError(`${name}() got an unexpected keyword argument '${key}'`);
  }
  if (rest.length > names.length) {
    const [most, got] = [skipped + names.length, skipped + rest.length + (Object.keys(given).length ? 1 : 0)];
    throw new TypeError(`${name}() takes at most ${most} positional arguments but ${got} were given`);
  }
  rest.forEach((value, i) => {
    if (value === undefined) return;
    if (given[names[i]] !== undefined) throw new TypeError(`${name}() got multiple values for argument '${names[i]}'`);
    given[names[i]] = value;
  });
  return given;
}

/** The test of an options object (JavaScript's keywords): a plain object, not a Tensor, an array or a typed array. */
export const optionsPredicate = (Tensor) => (v) =>
  v !== null && typeof v === "object" && !(v instanceof Tensor) && !Array.isArray(v) && !ArrayBuffer.isView(v);

/** Throws torch's TypeError unless each of `required` is in `given`. */
export function requireArgs(name, required, given) {
  const missing = required.filter((key) => given[key] === undefined || given[key] === null);
  if (missing.length > 0) {
    throw new TypeError(`${name}() missing required argument(s): ${missing.map((k) => `'${k}'`).join(", ")}`);
  }
}

/** `{ torch: {name: fn}, F: {name: fn} }` for every described row; the Tensor rows also become Tensor's methods. */
export function makeDescribed(wasm, { Tensor, handle }) {
  const spaces = { torch: {}, F: {}, Tensor: {} };
  const isOptions = optionsPredicate(Tensor);
  for (const [ns, name, count, optional, options, required] of wasm._described()) {
    const names = [...required, ...optional, ...options];
    spaces[ns][name] = (...args) => {
      if (args.length < count) {
        throw new TypeError(`${name}() missing ${count - args.length} required tensor argument(s)`);
      }
      const given = bindArgs(name, names, args.slice(count), isOptions, count);
      requireArgs(name, required, given);
      const values = {};
      for (const key of [...required, ...options]) {
        if (given[key] !== undefined && given[key] !== null) values[key] = given[key];
      }
      return wasm[name](...args.slice(0, count), values, ...optional.map((key) => handle(given[key])));
    };
  }
  for (const [name, fn] of Object.entries(spaces.Tensor)) {
    spaces.torch[name] = fn;
    Tensor.prototype[name] = function (...args) {
      return fn(this, ...args);
    };
  }
  return { torch: spaces.torch, F: spaces.F };
}
