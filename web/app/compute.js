// A seed edit changes numbers, never shapes: the sections of the chapter that neither make a result the step
// shows nor add anything that later sections read can wait until the step is painted (main.js computes them
// then). Which sections those are is learnt from the sections as they run: what each adds to the context and
// which results it makes. Skipping one changes no bits of the others: every section that draws seeds the
// generator itself first (chapter/index.js startChapter relies on the same), which tests/node/edit-compute.test.js
// checks against computeChapter.
import { chapterContext } from '../chapter/context.js';
import { SECTIONS } from '../chapter/index.js';

const learnt = new Map(); // section -> { adds: whether it adds to the context, makes: the names of its results }

function run(chapter, section) {
  const before = new Set(Object.keys(chapter.results));
  const added = section(chapter) ?? {};
  Object.assign(chapter, added);
  learnt.set(section, { adds: Object.keys(added).length > 0, makes: Object.keys(chapter.results).filter((name) => !before.has(name)) });
}

/**
 * The chapter for `settings` as far as the results `names` need it: { results, finish } as startChapter gives
 * them (finish() computes the sections left and returns what computeChapter would; until then reading a result
 * that is missing computes them first), or finish null when nothing was left. A section never seen run is run.
 * For settings that no section rejects (a seed edit of settings that computed): these results replace the last
 * ones at once, and the modules only those used are deleted now, not when the rest is computed (an edit that
 * comes first would otherwise keep them, the wasm memory growing with every seed edit of a burst).
 */
export function computeFirst(torch, settings, names) {
  const chapter = chapterContext(torch, settings);
  const left = [];
  for (const section of SECTIONS) {
    const known = learnt.get(section);
    if (known && !known.adds && !known.makes.some((name) => names.includes(name))) left.push(section);
    else run(chapter, section);
  }
  chapter.done();
  if (!left.length) return { results: chapter.results, finish: null };
  let failure = null;
  const finish = () => {
    if (failure) throw failure;
    try {
      for (; left.length; left.shift()) run(chapter, left[0]);
    } catch (error) {
      throw (failure = error);
    }
    chapter.done();
    return chapter.results;
  };
  const results = new Proxy(chapter.results, {
    get(target, name) {
      if (!(name in target) && left.length && !failure && typeof name === 'string') {
        try {
          finish();
        } catch {
          // kept for finish()
        }
      }
      return target[name];
    },
  });
  return { results, finish };
}
