// The API's limits as the notebook's torch shows them (one build: the Python layer is the same for both): no
// size wraps into a negative torch.Size, allclose at infinities gives PyTorch 1.13's answers, Python's large
// ints are integers (triu's diagonal), and a bad print option is refused when set.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';

import { loadNotebook } from '../../notebook/index.js';

describe('limits in the notebook', () => {
  let nb;
  before(async () => {
    nb = await loadNotebook({ flavour: 'simd' });
    await nb.run('import torch');
  });
  after(() => nb?.close());

  const fails = async (code, type, pattern) => {
    const { error } = await nb.run(code);
    assert.ok(error, `${code}: expected an error`);
    assert.equal(error.type, type);
    assert.match(error.message, pattern);
  };

  test('a size of 10**12 beside a 0 is refused, never printed as a negative torch.Size', async () => {
    await fails('print(torch.zeros(0, 10**12).shape)', 'RuntimeError',
      /^zeros: shape \[0,1000000000000\] is too large: even beside a size of 0/);
    await fails('torch.ones(0).reshape(2**31, 0)', 'RuntimeError', /^reshape: shape \[2147483648,0\] is too large/);
    const { output } = await nb.run('print(torch.zeros(0, 2**20).shape)');
    assert.equal(output, 'torch.Size([0, 1048576])\n');
  });

  test('allclose at infinities: what PyTorch 1.13 printed for the same line', async () => {
    const { output, error } = await nb.run([
      'inf = float("inf")',
      'print(torch.allclose(torch.tensor([1.]), torch.tensor([inf])),',
      '      torch.allclose(torch.tensor([inf]), torch.tensor([-inf])),',
      '      torch.allclose(torch.tensor([1e38]), torch.tensor([inf])),',
      '      torch.allclose(torch.tensor([inf]), torch.tensor([inf])))',
    ].join('\n'));
    assert.equal(error, null);
    assert.equal(output, 'False False False True\n');
    await fails('torch.allclose(torch.ones(1), torch.ones(1), rtol=-1)', 'RuntimeError',
      /^allclose: rtol must be greater than or equal to zero, but got -1$/);
  });

  test('triu(x, 2**53): a large Python int is an integer', async () => {
    const { output, error } = await nb.run('print(torch.triu(torch.ones(2, 2), 2**53), torch.tril(torch.ones(2, 2), 2**60))');
    assert.equal(error, null);
    assert.equal(output, 'tensor([[0., 0.],\n        [0., 0.]]) tensor([[1., 1.],\n        [1., 1.]])\n');
  });

  test('set_printoptions(edgeitems=-7) is refused when set; printing still works', async () => {
    await fails('torch.set_printoptions(edgeitems=-7)', 'RuntimeError',
      /^set_printoptions: edgeitems must be an integer in \[0, 2147483647\], got -7$/);
    const { output } = await nb.run('print(torch.ones(3))');
    assert.equal(output, 'tensor([1., 1., 1.])\n');
  });
});
