// Misuses of indexing and views (size, at, select, slice, set, transpose, view, reshape, iteration) throw
// AttentionError with a message naming the operation, the argument, what was expected and what was received.
import { describe } from 'node:test';

import BOOK from '../../book/chapter3.json' with { type: 'json' };
import { loadBuilds, misuseTests } from './support.mjs';

for (const [flavour, torch] of await loadBuilds()) {
  describe(`errors: indexing and views (${flavour})`, () => {
    const misuse = misuseTests(torch);

    // ------------------------------------------------------------ dims and indices out of range
    misuse('size: dim out of range', {
      run: () => torch.ones(2, 3).size(2),
      message: /^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)$/,
    });
    misuse('slice: dim out of range', {
      run: () => torch.ones(2, 3).slice(2, 0, 1),
      message: /^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)$/,
    });
    misuse('transpose: dim out of range', {
      run: () => torch.ones(2, 3).transpose(0, 2),
      message: /^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)$/,
    });
    misuse('at: index out of range', {
      run: () => torch.tensor(BOOK.embeddings).at(6),
      message: /^select\(\): index 6 out of range for tensor of size \[6, 3\] at dimension 0$/,
    });
    misuse('set: index out of range', {
      run: () => torch.ones(2, 3).set([0, 5], 1),
      message: /^index 5 is out of bounds for dimension 1 with size 3$/,
    });
    misuse('set: a value of the wrong shape', {
      run: () => torch.ones(2, 3).set(0, torch.ones(4)),
      message: /^The size of tensor a \(3\) must match the size of tensor b \(4\) at non-singleton dimension 0$/,
    });
    // ------------------------------------------------------------ shapes
    misuse('view: a size that does not match', {
      run: () => torch.ones(2, 3).view(4),
      message: /^shape '\[4\]' is invalid for input of size 6$/,
    });
    misuse('view: a non-contiguous tensor', {
      run: () => torch.ones(2, 3).T.view(6),
      message: /^view size is not compatible with input tensor's size and stride \(at least one dimension spans across two contiguous subspaces\)\. Use \.reshape\(\.\.\.\) instead\.$/,
    });
    misuse('reshape: two -1', {
      run: () => torch.ones(2, 3).reshape(-1, -1),
      message: /^only one dimension can be inferred$/,
    });
    misuse('iterating a 0-d tensor', {
      run: () => [...torch.tensor(1)],
      message: /^iteration: a 0-d tensor cannot be iterated$/,
    });
  });
}
