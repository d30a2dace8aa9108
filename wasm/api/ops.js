// The operations on tensors, each declared once. tensor.js makes the Tensor methods and torch.js the torch
// functions from this table, and the notebook's torch (notebook/python/torch) reads it, as torch.ops, to make
// its own under PyTorch's names. A new core op needs its core function, its line in bindings.cpp, an entry
// here, its type in index.d.ts and its tests.
//
// An entry:
//   name      the JS name, a Tensor method and/or a torch function (`on`)
//   args      what it takes, in order. On a Tensor method the tensor itself is the first argument (`input`).
//             Each argument has a kind, which is all JavaScript checks (the core checks values):
//               tensor    a Tensor                       tensors      a non-empty array of Tensors
//               int       an integer (dim, index, ...)   sizes        integers, as separate arguments or one array
//               number    a number                       probability  a number other than NaN
//               bool      anything, as true or false     operand      a Tensor, or a number (as `scalar`): then
//               dims      an integer or an array of them              the export named with 'Number' (before
//               string    a string (einsum's equation)                a final _)
//               dtype     a dtype's name ('int64')       scalar       a number (a Python float), a BigInt (an
//                                                                     int) or a boolean (a bool): its kind
//                                                                     decides the result's dtype, as PyTorch's
//                                                                     promotion does
//             and may have a default (used when it is left out), or `absent`: the export to call with the
//             arguments before it when it is left out (undefined or null). `says` is how messages name it
//             (by default its name). Named arguments come last, in one object ({ rtol, atol }).
//   core      the export of bindings.cpp that computes it (by default its name); `fixed`: values passed right
//             after the input; `enum`: [Embind enum, value name] passed after the arguments
//   returns   'tensor' (the default), 'tensors' (an array of them), 'value' (a number, boolean or string),
//             'self' (in place: the input, whose values the core changed) or 'pair' ({ values, indices },
//             unless the `absent` export ran)
//   dtype     true when a last { dtype } argument chooses the result's dtype (passed after the arguments)
//   getter    true for a Tensor property rather than a method (t.T)
//   view      true when the result always shares its input's storage
//   notebook  what the notebook's torch makes of it: a Tensor 'method' and/or a torch 'function', under
//             PyTorch's name (the JS name in snake_case: maskedFill_ is masked_fill_)

const arg = (kind) => (name, options = {}) => Object.freeze({ name, kind, ...options });
const tensor = arg('tensor'), tensors = arg('tensors'), int = arg('int'), sizes = arg('sizes'),
  number = arg('number'), probability = arg('probability'), bool = arg('bool'), operand = arg('operand'),
  dims = arg('dims'), string = arg('string'), scalar = arg('scalar'), dtype = arg('dtype');
const input = tensor('input');

const METHOD = ['tensor'], FUNCTION = ['torch'], BOTH = ['tensor', 'torch'];
const op = (name, on, options = {}) => ({ name, on, args: [input], ...options });

// The second operand of an element-wise op, and the value a fill writes.
const other = operand('other', { says: 'the operand' }), value = number('value', { says: 'the value' });
// An element-wise operation of two operands, the second a tensor or a number.
const binary = (name, options = {}) =>
  op(name, METHOD, { args: [input, other], notebook: ['method', 'function'], ...options });
// A comparison: a bool tensor, through the core's compare(a, b, Compare).
const comparison = (name) => op(name, METHOD, { args: [input, other], core: 'compare', enum: ['Compare', name] });

export const OPS = Object.freeze([
  // ---- creation
  ...['rand', 'randn'].map((name) => op(name, FUNCTION, { args: [sizes('size')] })),
  ...['ones', 'zeros', 'empty'].map((name) => op(name, FUNCTION, { args: [sizes('size')], dtype: true })),
  op('stack', FUNCTION, { args: [tensors('tensors'), int('dim', { default: 0 })] }),
  op('cat', FUNCTION, { args: [tensors('tensors'), int('dim', { default: 0 })] }),

  // ---- reading a tensor
  op('item', METHOD, { returns: 'value' }),
  op('toString', METHOD, { core: 'tensorToString', returns: 'value' }),
  op('bool', METHOD, { core: 'toBool', notebook: ['method'] }),
  op('float', METHOD, { core: 'toFloat', notebook: ['method'] }),
  op('long', METHOD, { core: 'to', enum: ['DType', 'int64'] }),
  op('double', METHOD, { core: 'to', enum: ['DType', 'float64'] }),
  op('int', METHOD, { core: 'to', enum: ['DType', 'int32'] }),
  op('to', METHOD, { args: [input, dtype('dtype')] }),

  // ---- views and copies
  op('at', METHOD, { args: [input, int('index')], core: 'select', fixed: [0], view: true }),
  op('select', METHOD, { args: [input, int('dim'), int('index')], view: true }),
  op('slice', METHOD, {
    args: [input, int('dim'), int('start'), int('end', { default: Number.MAX_SAFE_INTEGER }),
      int('step', { default: 1 })],
    core: 'sliceStep', view: true,
  }),
  op('T', METHOD, { getter: true, view: true }),
  op('transpose', METHOD, { args: [input, int('dim0'), int('dim1')], view: true, notebook: ['method', 'function'] }),
  op('view', METHOD, { args: [input, sizes('shape')], view: true, notebook: ['method'] }),
  op('reshape', METHOD, { args: [input, sizes('shape')], notebook: ['method'] }), // a view where the strides allow
  op('flatten', BOTH, {
    args: [input, int('startDim', { default: 0 }), int('endDim', { default: -1 })], notebook: ['method', 'function'],
  }),
  op('permute', BOTH, { args: [input, sizes('dims')], view: true, notebook: ['method', 'function'] }),
  op('movedim', BOTH, { args: [input, int('source'), int('destination')], view: true, notebook: ['method', 'function'] }),
  op('squeeze', BOTH, { args: [input, int('dim', { absent: 'squeezeAll' })], view: true, notebook: ['method', 'function'] }),
  op('expand', METHOD, { args: [input, sizes('size')], view: true, notebook: ['method'] }),
  op('repeat', METHOD, { args: [input, sizes('repeats')], notebook: ['method'] }),
  // several results, each a view of the input
  op('unbind', BOTH, { args: [input, int('dim', { default: 0 })], returns: 'tensors', notebook: ['method', 'function'] }),
  op('chunk', BOTH, {
    args: [input, int('chunks'), int('dim', { default: 0 })], returns: 'tensors', notebook: ['method', 'function'],
  }),
  op('split', BOTH, { args: [input, int('splitSize'), int('dim', { default: 0 })], returns: 'tensors' }),
  op('splitWithSizes', BOTH, { args: [input, dims('splitSizes'), int('dim', { default: 0 })], returns: 'tensors' }),
  // t[mask] and t[[i, j]] (copies), t[mask] = value and t[[i, j]] = value along dim (in place)
  op('indexMask', METHOD, { args: [input, tensor('mask')] }),
  op('indexSelect', METHOD, { args: [input, int('dim'), dims('index')] }),
  op('indexPutMask_', METHOD, { args: [input, tensor('mask'), tensor('value')], returns: 'self' }),
  op('indexPutRows_', METHOD, { args: [input, int('dim'), dims('index'), tensor('value')], returns: 'self' }),
  op('unsqueeze', METHOD, { args: [input, int('dim')], view: true, notebook: ['method'] }),
  op('contiguous', METHOD, { notebook: ['method'] }),
  op('clone', METHOD, { notebook: ['method'] }),

  // ---- math
  op('matmul', BOTH, { args: [input, tensor('other')], notebook: ['method', 'function'] }),
  op('dot', BOTH, { args: [input, tensor('other')], notebook: ['method', 'function'] }),
  op('softmax', BOTH, { args: [input, int('dim')], notebook: ['method'] }),
  op('sum', BOTH, {
    args: [input, dims('dim', { absent: 'sumAll' }), bool('keepdim', { default: false })], core: 'sumDims',
    notebook: ['function'],
  }),
  // ---- reductions over dims (one, a list, or every dim when left out)
  op('mean', BOTH, {
    args: [input, dims('dim', { absent: 'mean' }), bool('keepdim', { default: false })], core: 'meanDims',
    notebook: ['method', 'function'],
  }),
  // Bessel's correction 1 (unbiased, PyTorch's default) or 0; every dim when dim is left out
  op('var', BOTH, {
    args: [input, dims('dim', { default: [] }), number('correction', { default: 1 }), bool('keepdim', { default: false })],
  }),
  op('std', BOTH, {
    args: [input, dims('dim', { default: [] }), number('correction', { default: 1 }), bool('keepdim', { default: false })],
  }),
  op('amax', BOTH, { args: [input, dims('dim', { default: [] }), bool('keepdim', { default: false })], notebook: ['method', 'function'] }),
  op('amin', BOTH, { args: [input, dims('dim', { default: [] }), bool('keepdim', { default: false })], notebook: ['method', 'function'] }),
  op('prod', BOTH, {
    args: [input, int('dim', { absent: 'prod' }), bool('keepdim', { default: false })], core: 'prodDim',
    notebook: ['method', 'function'],
  }),
  op('cumsum', BOTH, { args: [input, int('dim')], notebook: ['method', 'function'] }),
  op('logSoftmax', BOTH, { args: [input, int('dim')], notebook: ['method', 'function'] }),
  ...['abs', 'log', 'sqrt', 'rsqrt'].map((name) => op(name, BOTH, { notebook: ['method', 'function'] })),
  // NaN (the default) leaves that side unbounded
  op('clamp', BOTH, { args: [input, number('min', { default: NaN }), number('max', { default: NaN })] }),
  op('where', FUNCTION, { args: [tensor('condition'), input, tensor('other')] }),
  op('isclose', BOTH, {
    args: [input, tensor('other'), number('rtol', { default: 1e-5, named: true }),
      number('atol', { default: 1e-8, named: true })],
  }),
  op('equal', BOTH, { args: [input, tensor('other')], returns: 'value' }),
  // ---- batched products
  op('bmm', BOTH, { args: [input, tensor('mat2')], notebook: ['method', 'function'] }),
  op('baddbmm', BOTH, {
    args: [input, tensor('batch1'), tensor('batch2'), number('beta', { default: 1, named: true }),
      number('alpha', { default: 1, named: true })],
    notebook: ['method', 'function'],
  }),
  // 'bij,bkj->bik' over one or two tensors, lowered to permute, sum and bmm
  op('einsum', FUNCTION, { args: [string('equation'), tensors('operands')] }),

  binary('add', { notebook: ['function'] }),
  binary('sub'),
  binary('mul'),
  binary('div'),
  binary('pow'),
  op('argmax', BOTH, { args: [input, int('dim', { absent: 'argmaxAll' }), bool('keepdim', { default: false })] }),
  op('argmin', BOTH, { args: [input, int('dim', { absent: 'argminAll' }), bool('keepdim', { default: false })] }),
  op('max', BOTH, {
    args: [input, int('dim', { absent: 'maxAll' }), bool('keepdim', { default: false })], returns: 'pair',
  }),
  op('min', BOTH, {
    args: [input, int('dim', { absent: 'minAll' }), bool('keepdim', { default: false })], returns: 'pair',
  }),
  op('exp', BOTH, { notebook: ['method', 'function'] }),
  op('neg', BOTH, { notebook: ['method', 'function'] }),
  // 1 / t: PyTorch computes `n / t` as t.reciprocal() * n
  op('reciprocal', METHOD, { notebook: ['method', 'function'] }),
  // n - t (Python's `n - t`)
  op('rsub', METHOD, { args: [input, scalar('other', { says: 'the operand' })], core: 'rsubNumber' }),
  // nn.functional.linear: x @ weight.T + bias with nn.Linear's bits and grad_fn
  op('linear', FUNCTION, { args: [input, tensor('weight'), tensor('bias', { absent: 'linearNoBias' })] }),
  // nn.functional.dropout: nn.Dropout's masks (under the current RNG profile) without a module
  op('dropout', FUNCTION, { args: [input, probability('p', { default: 0.5 }), bool('training', { default: true })] }),
  op('allclose', FUNCTION, {
    args: [input, tensor('other'), number('rtol', { default: 1e-5, named: true }),
      number('atol', { default: 1e-8, named: true })],
    returns: 'value',
  }),

  // ---- comparisons: bool tensors
  ...['eq', 'ne', 'lt', 'le', 'gt', 'ge'].map(comparison),

  // ---- logical (bool) and bitwise (int64): PyTorch's & | ^ ~
  ...['and', 'or', 'xor'].map((name) => op(`bitwise${name[0].toUpperCase()}${name.slice(1)}`, METHOD,
    { args: [input, other], core: 'bitwise', enum: ['Bitwise', name] })),
  op('bitwiseNot', METHOD, { notebook: ['method', 'function'] }),

  // ---- masks
  op('triu', FUNCTION, { args: [input, int('diagonal', { default: 0 })], notebook: ['method', 'function'] }),
  op('tril', FUNCTION, { args: [input, int('diagonal', { default: 0 })], notebook: ['method', 'function'] }),
  op('maskedFill', METHOD, { args: [input, tensor('mask'), value], notebook: ['method', 'function'] }),

  // ---- in place: each returns the tensor itself
  op('maskedFill_', METHOD, { args: [input, tensor('mask'), value], returns: 'self', notebook: ['method'] }),
  op('add_', METHOD, { args: [input, other], returns: 'self', notebook: ['method'] }),
  op('zero_', METHOD, { returns: 'self', notebook: ['method'] }),
  op('fill_', METHOD, { args: [input, value], returns: 'self', notebook: ['method'] }),
  // the default generator's draws, as torch.rand / torch.randn take them, with PyTorch's transforms
  op('uniform_', METHOD, {
    args: [input, number('from_', { default: 0, says: 'from' }), number('to', { default: 1 })], returns: 'self', notebook: ['method'],
  }),
  op('normal_', METHOD, {
    args: [input, number('mean', { default: 0 }), number('std', { default: 1 })], returns: 'self', notebook: ['method'],
  }),
].map((entry) => Object.freeze({ ...entry, args: Object.freeze(entry.args) })));
