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
      message: [/^size: dim 2 is out of range/, /\[-2, 1\]/],
    });
    misuse('slice: dim out of range', {
      run: () => torch.ones(2, 3).slice(2, 0, 1),
      message: [/^slice: dim 2 is out of range/],
    });
    misuse('transpose: dim out of range', {
      run: () => torch.ones(2, 3).transpose(0, 2),
      message: [/^transpose: dim 2 is out of range/, /\[2,3\]/, /\[-2, 1\]/],
    });
    misuse('at: index out of range', {
      run: () => torch.tensor(BOOK.embeddings).at(6),
      message: [/index 6 is out of range for dim 0 of size 6/],
    });
    misuse('set: index out of range', {
      run: () => torch.ones(2, 3).set([0, 5], 1),
      message: [/^set: /, /index 5/, /dim 1 of size 3/],
    });
    misuse('set: a value of the wrong shape', {
      run: () => torch.ones(2, 3).set(0, torch.ones(4)),
      message: [/\[3\] and \[4\]/],
    });
    // ------------------------------------------------------------ shapes
    misuse('view: a size that does not match', {
      run: () => torch.ones(2, 3).view(4),
      message: /^view: shape \[4\] is invalid for input of shape \[2,3\] \(6 elements\)$/,
    });
    misuse('view: a non-contiguous tensor', {
      run: () => torch.ones(2, 3).T.view(6),
      message: [/^view: /, /not contiguous/, /\[3,2\]/, /\[6\]/],
    });
    misuse('reshape: two -1', {
      run: () => torch.ones(2, 3).reshape(-1, -1),
      message: [/^reshape: only one dimension can be inferred/, /\[-1,-1\]/],
    });
    misuse('iterating a 0-d tensor', {
      run: () => [...torch.tensor(1)],
      message: /^iteration: a 0-d tensor cannot be iterated$/,
    });
  });
}
