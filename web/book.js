// The chapter's own numbers, from book/chapter3.json (the one copy the page and the tests read): its input
// sentence, the tensor of its batched-matmul example and what it prints for each result the page shows.
// A result "matches the book" when its live values equal the printed ones at the printed precision.
import book from '../book/chapter3.json' with { type: 'json' };

const deepFreeze = (o) => {
  if (o && typeof o === 'object') for (const v of Object.values(Object.freeze(o))) deepFreeze(v);
  return o;
};

export const BOOK_TOKENS = deepFreeze(book.tokens);
export const BOOK_EMBEDDINGS = deepFreeze(book.embeddings);
export const BOOK_BMM_INPUT = deepFreeze(book.bmm_input);
export const BOOK_PRINTS = deepFreeze(book.prints);
