// The chapter's modules. Each JS module holds an Embind handle of its C++ class (bindings.cpp); Embind's
// FinalizationRegistry frees the C++ object once the JS module is collected, and delete() (or `using`,
// through Symbol.dispose) frees it at once. Whatever can still call into a module (its submodules' forward)
// holds the JS module itself.
//
// A parameter, as in PyTorch, is one tensor whose storage the module shares: in-place changes through it or
// any view of it (m.weight.at(0).fill_(0), m.weight.T.add_(1)) are the module's. The first read copies it
// out of the core into a Float32Array; the module keeps that tensor, and before the core next reads its
// parameters (forward), copies back those whose storage has been written since (boundary.js counts the
// writes). The tensor holds nothing of the module, so a kept weight does not keep a dropped module alive.
import { AttentionError, choice, enumNames, integer, probability, size } from './checks.js';

export function defineModules(wasm, core, { tensorOf, tensorArg }) {
  const HANDLE = Symbol('handle');
  const ROOT = Symbol('root');
  const SHARED = Symbol('shared parameters'); // name -> { tensor, writes: the write count last copied back }
  const paths = enumNames(wasm.AttentionPath);

  // The module's live handle; a deleted module says so instead of Embind's BindingError.
  function handleOf(module, op) {
    const handle = module[HANDLE];
    if (handle.isDeleted()) throw new AttentionError(`${op}: this ${module.constructor.name} was deleted`);
    return handle;
  }

  // The parameter `name` of a root module: the tensor the module shares.
  function parameterOf(root, name) {
    let shared = root[SHARED].get(name);
    if (shared === undefined) {
      const data = core.methodTensor(handleOf(root, name), 'parameter', name);
      shared = { tensor: tensorOf(data), writes: core.writeCount(data.storage) };
      root[SHARED].set(name, shared);
    }
    return shared.tensor;
  }
  // The handle of a root module whose parameters are about to be read by the core, with every parameter
  // written in JavaScript since it was read (or last copied back) copied into it.
  function runnableHandle(root, op) {
    const handle = handleOf(root, op);
    for (const [name, shared] of root[SHARED]) {
      const data = shared.tensor._tensorData, writes = core.writeCount(data.storage);
      if (writes === shared.writes) continue;
      core.method(handle, 'loadParameter', name, data);
      shared.writes = writes;
    }
    return handle;
  }

  // Mirrors the module tree: one object per submodule ('W_query', 'heads.0', ...) with a forward(x), and
  // a getter/setter per parameter ('W_query.weight', ...). Numeric segments make arrays (heads[0]).
  // The layout of a kind of module is worked out once (planTree); each instance then only creates its
  // objects and gives them the shared parameter accessors, which find the module through the object's [ROOT].
  function planTree(moduleNames, parameterNames) {
    const containers = [{ parent: -1, part: null, array: false, descriptors: {}, forward: null }];
    const index = new Map([['', 0]]);
    const node = (path) => {
      let at = 0;
      path.forEach((part, i) => {
        const key = path.slice(0, i + 1).join('.');
        if (!index.has(key)) {
          index.set(key, containers.length);
          containers.push({ parent: at, part, array: i + 1 < path.length && /^\d+$/.test(path[i + 1]), descriptors: {},
            forward: null });
        }
        at = index.get(key);
      });
      return containers[at];
    };
    for (const name of moduleNames) node(name.split('.')).forward = name;
    for (const name of parameterNames) {
      const parts = name.split('.');
      node(parts.slice(0, -1)).descriptors[parts[parts.length - 1]] = {
        enumerable: true,
        get() { return parameterOf(this[ROOT], name); },
        // A new parameter with the value's contents (tensors read before keep the old one, as in PyTorch)
        set(value) {
          const root = this[ROOT];
          core.method(handleOf(root, `${name} =`), 'loadParameter', name, tensorArg(`${name} =`, 'the value', value));
          root[SHARED].delete(name);
        },
      };
    }
    // nn.Linear without a bias has bias None: give null rather than undefined.
    for (const c of containers) c.nullBias = 'weight' in c.descriptors && !('bias' in c.descriptors);
    return containers;
  }
  function attachTree(target, plan) {
    const objects = [];
    for (const c of plan) {
      const object = c.parent < 0 ? target : (objects[c.parent][c.part] = c.array ? [] : {});
      object[ROOT] = target;
      Object.defineProperties(object, c.descriptors);
      if (c.forward) { // a closure of its own: it works detached from the object too
        const name = c.forward;
        Object.defineProperty(object, 'forward', {
          value: (x) => {
            const input = tensorArg(`${name}.forward`, 'x', x);
            return tensorOf(core.methodTensor(runnableHandle(target, `${name}.forward`), 'forwardSubmodule', name, input));
          },
        });
      }
      if (c.nullBias) object.bias = null;
      objects.push(object);
    }
  }

  // The tree's plan by constructor call: it depends only on the kind and its arguments.
  const treePlans = new Map();

  class Module {
    constructor(kind, ...args) {
      if (new.target === Module) { // the base of the modules below, as index.d.ts declares it (abstract)
        throw new AttentionError('nn.Module cannot be constructed itself: construct one of its kinds, such as ' +
          'new torch.nn.Linear(3, 2) or new torch.SelfAttention_v1(3, 2)');
      }
      const handle = core.construct(kind, ...args);
      Object.defineProperty(this, HANDLE, { value: handle });
      Object.defineProperty(this, SHARED, { value: new Map() });
      const key = `${kind}(${args.join(',')})`;
      let plan = treePlans.get(key);
      if (plan === undefined) {
        plan = planTree(handle.moduleNames(), handle.parameterNames());
        treePlans.set(key, plan);
      }
      attachTree(this, plan);
    }
    forward(x) {
      const op = `${this.constructor.name}.forward`;
      const input = tensorArg(op, 'x', x);
      return tensorOf(core.methodTensor(runnableHandle(this, op), 'forward', input));
    }
    train(mode = true) {
      handleOf(this, 'train').train(Boolean(mode));
      return this;
    }
    eval() { return this.train(false); }
    get training() { return handleOf(this, 'training').training; }
    /**
     * How CausalAttention and MultiHeadAttention (here and in every submodule) compute attention:
     * 'auto' (the default: the fast path from 64 tokens on when dropout is inactive), 'exact' (PyTorch's
     * steps and bits) or 'fast' (tiled, online softmax, whenever dropout is inactive). Returns this module.
     */
    setAttentionPath(path) {
      const value = choice('setAttentionPath', 'path', paths.byName, path);
      handleOf(this, 'setAttentionPath').setAttentionPath(value);
      return this;
    }
    /** Frees the C++ module now rather than when this object is collected; it cannot be used after. */
    delete() {
      if (!this[HANDLE].isDeleted()) this[HANDLE].delete();
    }
    [Symbol.dispose]() { this.delete(); }
  }

  // The arguments CausalAttention, MultiHeadAttentionWrapper and MultiHeadAttention begin with.
  const causalArgs = (op, d_in, d_out, context_length, dropout) => [size(op, 'd_in', d_in), size(op, 'd_out', d_out),
    size(op, 'context_length', context_length), probability(op, 'dropout', dropout)];

  class Linear extends Module {
    constructor(inFeatures, outFeatures, bias = true) {
      super('Linear', size('Linear', 'inFeatures', inFeatures), size('Linear', 'outFeatures', outFeatures),
        Boolean(bias));
      this.inFeatures = inFeatures;
      this.outFeatures = outFeatures;
    }
  }
  class Dropout extends Module {
    constructor(p = 0.5) {
      super('Dropout', probability('Dropout', 'dropout', p));
      this.p = p;
    }
  }
  class SelfAttention_v1 extends Module {
    constructor(d_in, d_out) {
      super('SelfAttention_v1', size('SelfAttention_v1', 'd_in', d_in), size('SelfAttention_v1', 'd_out', d_out));
      this.d_out = d_out;
    }
  }
  class SelfAttention_v2 extends Module {
    constructor(d_in, d_out, qkv_bias = false) {
      super('SelfAttention_v2', size('SelfAttention_v2', 'd_in', d_in), size('SelfAttention_v2', 'd_out', d_out),
        Boolean(qkv_bias));
      this.d_out = d_out;
    }
  }
  class CausalAttention extends Module {
    constructor(d_in, d_out, context_length, dropout, qkv_bias = false) {
      const op = 'CausalAttention';
      super(op, ...causalArgs(op, d_in, d_out, context_length, dropout), Boolean(qkv_bias));
      this.d_out = d_out;
      this.context_length = context_length;
    }
  }
  class MultiHeadAttentionWrapper extends Module {
    constructor(d_in, d_out, context_length, dropout, num_heads, qkv_bias = false) {
      const op = 'MultiHeadAttentionWrapper';
      super(op, ...causalArgs(op, d_in, d_out, context_length, dropout), size(op, 'num_heads', num_heads),
        Boolean(qkv_bias));
      this.num_heads = num_heads;
    }
  }
  class MultiHeadAttention extends Module {
    constructor(d_in, d_out, context_length, dropout, num_heads, qkv_bias = false) {
      const op = 'MultiHeadAttention';
      super(op, ...causalArgs(op, d_in, d_out, context_length, dropout), size(op, 'num_heads', num_heads),
        Boolean(qkv_bias));
      this.d_out = d_out;
      this.num_heads = num_heads;
      this.head_dim = d_out / num_heads;
      this.context_length = context_length;
    }
    /**
     * One head's attention weights (before dropout) for the first `rows` queries of x: [b, rows, T], or
     * [rows, T] for a 2-D x. PyTorch's bits, computed from only those rows: cheap at any size.
     */
    attentionWeights(x, head, rows) {
      const op = 'attentionWeights';
      const input = tensorArg(op, 'x', x), headIndex = integer(op, 'head', head), rowCount = integer(op, 'rows', rows);
      return tensorOf(core.methodTensor(runnableHandle(this, op), 'attentionWeights', input, headIndex, rowCount));
    }
  }

  return { Module, Linear, Dropout, SelfAttention_v1, SelfAttention_v2, CausalAttention, MultiHeadAttentionWrapper,
    MultiHeadAttention };
}
