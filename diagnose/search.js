// The search: which of the chapter's results print exactly as pasted, under the settings plus as few changes as
// possible. Stages, each tried only when the ones before found nothing exact:
//   1. the settings as they are;
//   2. one change: the other build's masks, a setting, a cell run twice or a class created first, a common seed;
//   3. one seed from 0 to 10,000, for every result a seed moves (seed-scan.js);
//   4. two changes of different kinds.
// In every run each mistake of the page's "What if…" list is compared too, as one more change. A run
// recomputes only the sections its change affects and stops once the results compared have been shown.
import { STEPS } from '../web/steps/index.js';
import { ChapterRun } from './chapter-run.js';
import { compareResult } from './compare.js';
import { parsePrinted } from './parse.js';
import { scanSeeds, seedScanner, mayPrintMore } from './seed-scan.js';
import { COMMON_SEEDS, SEED_RANGE, DERIVED_MISTAKES, CLASS_MISTAKES, trainingTargets, seedKeys, seedChange, profileChange, settingChanges, drawsChanges, mistakeChange } from './changes.js';

/**
 * The results a paste is compared with: each step's shown results (and the right side of its mistakes), and
 * each mistake's wrong result; restricted to one step's when `stepId` is given.
 */
export function targetsOf(stepId = null, settings = null) {
  const steps = stepId ? STEPS.filter((s) => s.id === stepId) : STEPS;
  const plain = new Map();
  const mistakes = [];
  for (const step of steps) {
    const oneOf = new Set(step.printsOneOf ?? []);
    for (const name of [...step.show, ...(step.mistakes ?? []).map((m) => m.right)]) {
      if (!oneOf.has(name) && !plain.has(name)) plain.set(name, step.id);
    }
    for (const m of step.mistakes ?? []) mistakes.push({ name: m.wrong, step: step.id, change: mistakeChange(m) });
  }
  const derived = DERIVED_MISTAKES.filter((d) => steps.some((s) => s.id === d.step)).map((d) => ({ ...d, name: `mistake:${d.id}`, change: mistakeChange(d) }));
  const inClasses = CLASS_MISTAKES.filter((d) => steps.some((s) => s.id === d.step)).map((d) => ({ ...d, name: `mistake:${d.id}`, change: mistakeChange(d) }));
  const training = settings ? trainingTargets(settings).filter((d) => steps.some((s) => s.id === d.step)).map((d) => ({ ...d, name: `training:${d.id}` })) : [];
  return { plain: [...plain].map(([name, step]) => ({ name, step })), mistakes, derived, inClasses: [...inClasses, ...training] };
}

export async function search(torch, settings, paste, { step = null } = {}) {
  const run = new ChapterRun(torch, settings);
  const ongoing = { range: null };
  try {
    return await searchIn(run, settings, paste, targetsOf(step, settings), ongoing);
  } finally {
    ongoing.range?.stop();
    run.dispose();
  }
}

// What warmUp searches for: a whole result and one row, the keys and 3.3.1's weights (shapes many results and
// their rows have, so that every stage compares many), each with one number altered, so that no stage answers
// and each runs; the range of seeds cut to one chunk for each thread. (In Node, with the keys alone, the first
// search of an altered 6-vector after it took 2.0-2.2 s of CPU against 2.5 s cold; with the row too, 1.1-1.4 s.)
const WARM_RESULTS = ['keys', 'attn_weights_2'];
const WARM_RANGE = 999;

/**
 * A search the learner did not ask for, for its side effects only: compiled code for every stage (V8 tiers up the
 * seed models, the comparisons and the chapter's runs over the first searches; a page's first search took
 * 0.4-2.5 s more than its next) before the first paste. Its answer is dropped; nothing it computes is kept.
 * `stillWanted()` is asked between its parts: false (a search is waiting) ends it there.
 */
export async function warmUp(torch, settings, { stillWanted = () => true } = {}) {
  const run = new ChapterRun(torch, settings);
  const ongoing = { range: null };
  // (between stages and changes, a turn for the thread's messages: a search that came meanwhile ends it there)
  const pause = async () => {
    await nextTask();
    return stillWanted();
  };
  try {
    for (const name of WARM_RESULTS) {
      const printed = run.results[name]?.tensor.toString();
      if (!printed || !(await pause())) return;
      // (the first printed number's last digit changed: a printout nothing explains)
      const altered = printed.replace(/\d(?=[,\]])/, (d) => String((Number(d) + 1) % 10));
      if ((await searchIn(run, settings, parsePrinted(altered), targetsOf(null, settings), ongoing, { seedRange: WARM_RANGE, pause })) === null) return;
      ongoing.range?.stop();
    }
  } finally {
    ongoing.range?.stop();
    run.dispose();
  }
}

// The thread that scans chunks of the range of seeds for this one (the page's second worker): a MessagePort to
// it, whose other end is given to scanChunksFor there; none in Node or in the single file.
let helper = null;

/** Lets the range of seeds be shared with the thread at the other end of `port` from now on (null: scanned here alone). */
export function shareScans(port) {
  helper = port;
}

const skipOf = ({ settings, skipValues }) => {
  const skipped = new Set(skipValues);
  return (key, v) => skipped.has(v) || v === settings[key];
};

// The range of seeds in chunks of this many: the helper takes them from the top down, this thread from the bottom
// up, so that neither waits for the other (two fixed halves left one idle while the other finished).
const RANGE_CHUNK = 500;
let scanIds = 0;
// a task's turn for the messages waiting (setImmediate in Node; a MessageChannel elsewhere, as a worker's nested
// timers are held back 4 ms)
let ticks = null;
const nextTask = () =>
  new Promise((resolve) => {
    if (typeof setImmediate === 'function') return setImmediate(resolve);
    ticks ??= new MessageChannel();
    ticks.port1.onmessage = () => resolve();
    ticks.port2.postMessage(null);
  });

/**
 * The range 0..job.range scanned for candidates ({ candidates, unmodelled }, in scanSeeds' order: by key, then by
 * seed): finish() hands it to the helper, if any, which scans chunks from the top, and scans from the bottom
 * the chunks it has not started, waits for those it has (a chunk it could not scan is scanned here), and gives
 * the candidates; stop() tells it to take no more. A chunk both took at once is scanned twice, the first kept.
 */
function rangeScan(job) {
  const chunks = [];
  for (let from = 0; from <= job.range; from += RANGE_CHUNK) chunks.push([from, Math.min(from + RANGE_CHUNK - 1, job.range)]);
  const id = ++scanIds;
  const found = new Array(chunks.length).fill(null);
  const theirs = new Set(); // chunks the helper has started
  let port = null;
  let news = null;
  const start = () => {
    if (port || !helper) return;
    port = helper;
    port.onmessage = ({ data }) => {
      if (data.id !== id) return;
      if ('starting' in data) theirs.add(data.starting);
      else if ('error' in data) theirs.delete(data.chunk);
      else found[data.chunk] ??= data.candidates;
      news?.();
    };
    port.postMessage({ id, job, chunks });
  };
  const finish = async () => {
    start();
    const scanner = seedScanner({ ...job, skip: skipOf(job) });
    if (!port) return { candidates: scanner.scan(0, job.range), unmodelled: scanner.unmodelled };
    for (;;) {
      await nextTask(); // (the helper's messages)
      const next = found.findIndex((f, i) => !f && !theirs.has(i));
      if (next >= 0) {
        port.postMessage({ id, taken: next });
        found[next] = scanner.scan(...chunks[next]);
      } else if (found.every(Boolean)) break;
      else await new Promise((resolve) => (news = resolve));
    }
    return { candidates: job.keys.flatMap((key) => found.flatMap((chunk) => chunk.filter((c) => c.key === key))), unmodelled: scanner.unmodelled };
  };
  const stop = () => port?.postMessage({ id, stop: true });
  return { finish, stop };
}

/**
 * The helper's side (the page's second worker): the chunks of the range each search sends over `port`, scanned
 * from the last down until the searching thread has taken the next or says stop; a newer search's replace them.
 */
export function scanChunksFor(port) {
  let current = null;
  port.onmessage = ({ data }) => {
    if (data.job) scanFromTop((current = { ...data, taken: new Set(), stopped: false }));
    else if (current?.id === data.id) {
      if (data.stop) current.stopped = true;
      else current.taken.add(data.taken);
    }
  };
  async function scanFromTop(work) {
    let scanner;
    try {
      scanner = seedScanner({ ...work.job, skip: skipOf(work.job) });
    } catch {
      return; // (the searching thread scans every chunk itself)
    }
    for (let i = work.chunks.length - 1; i >= 0; i--) {
      await nextTask(); // (a stop, a chunk taken or a newer search)
      if (work !== current || work.stopped || work.taken.has(i)) return;
      port.postMessage({ id: work.id, starting: i });
      try {
        port.postMessage({ id: work.id, chunk: i, candidates: scanner.scan(...work.chunks[i]) });
      } catch (error) {
        port.postMessage({ id: work.id, chunk: i, error: String(error?.message ?? error) });
        return;
      }
    }
  }
}

// `seedRange` and `pause` are warmUp's: the last seed of the range, and a function asked between stages, whose
// false ends the search there (answering null).
async function searchIn(run, settings, paste, targets, ongoing, { seedRange = SEED_RANGE, pause = null } = {}) {
  const stopped = async () => pause !== null && !(await pause());
  // only the results with a part of the paste's shape can answer
  // a change of d_out or heads changes shapes; any other change can only answer with a result of the paste's shape
  const every = [...targets.plain.map((t) => ({ ...t, change: null })), ...targets.mistakes];
  const derived = targets.derived;
  const inClasses = targets.inClasses;
  const fits = (name) => compareResult({ shape: run.results[name]?.shape }, { ...paste, kind: 'size' }, HEAD_WIDTH[name]?.(settings)) !== null;
  const all = every.filter((t) => fits(t.name));
  const exact = [];
  const exactly = (result) => {
    const cmp = compareResult(result, paste);
    return cmp !== null && cmp.equal === cmp.total;
  };
  // the nearest so far, and where the run that computed it stands in the order of the stages and of the changes in
  // each (`at`, set before each run): of results as near, the earliest in that order is named, however the runs
  // are scheduled
  let nearest = null;
  let nearestAt = null;
  let at = [0, 0];
  const earlier = (a, b) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
  // the equal cells a run about to be made at `at` must exceed to be the nearest (as many win where it comes earlier)
  const beaten = () => (!nearest ? -1 : earlier(at, nearestAt) ? nearest.cells.equal - 1 : nearest.cells.equal);

  // compares every target a run recomputed (all of them for the settings as they are)
  const check = (results, changes, recomputed, targets = all, parts = null, runSettings = settings, classes = null, derivedNames = null) => {
    // the mistakes made from results, where those were computed (as the paste's shape allows), and those put
    // into a class's forward, where this run has the class
    const made = new Set();
    // (a class built anew in training mode has no draws change to follow: its cell seeds it itself)
    // (only where the class's output, which its mistakes share, can hold the paste)
    for (const d of parts ? inClasses : []) {
      if (classes && !classes.has(d.name)) continue;
      if (!parts.has(d.part) || !results[d.input]?.tensor || (d.change && changes.some((c) => c.draws))) continue;
      if (!compareResult({ shape: results[d.output]?.shape }, { ...paste, kind: 'size' }, HEAD_WIDTH[d.output]?.(runSettings))) continue;
      const tensor = d.make(run.torch, parts.get(d.part), results[d.input].tensor, runSettings);
      if (!tensor) continue;
      results = { ...results, [d.name]: { name: d.name, label: d.label ?? d.code.wrong, headWidth: tensor.headWidth, ...lazyValues(tensor) } };
      made.add(d.name);
    }
    for (const d of derived) {
      if (derivedNames && !derivedNames.has(d.name)) continue;
      if ((recomputed && !d.from.some((n) => recomputed.has(n))) || d.from.some((n) => !results[n]?.tensor)) continue;
      const tensors = Object.fromEntries(d.from.map((n) => [n, results[n].tensor]));
      results = { ...results, [d.name]: { name: d.name, label: d.code.wrong, ...lazyValues(d.make(run.torch, tensors)) } };
      derivedShapes.set(d.name, results[d.name].shape);
      made.add(d.name);
    }
    for (const t of [...targets, ...derived, ...inClasses]) {
      // a mistake made in this check is compared; any other result only where this run recomputed it (the others
      // print as in the run they were compared in), and never a mistake this check did not make (a class's or
      // one made from results, where `results` holds none of its own)
      if (!made.has(t.name) && ((recomputed && !recomputed.has(t.name)) || t.make)) continue;
      const cmp = compareResult(results[t.name], paste, results[t.name]?.headWidth ?? HEAD_WIDTH[t.name]?.(runSettings));
      if (!cmp) continue;
      const answer = {
        step: t.step,
        result: t.name,
        label: results[t.name].label + (cmp.columns ? `[..., ${cmp.columns[0]}:${cmp.columns[1]}]` : ''),
        at: cmp.at,
        changes: [...changes, ...(t.change ? [t.change] : [])].map(publicChange),
        cells: { equal: cmp.equal, total: cmp.total },
        firstDifference: cmp.first,
        matches: cmp.matches,
      };
      if (cmp.equal === cmp.total) exact.push(answer);
      else {
        const ratio = cmp.equal / cmp.total;
        const best = nearest && nearest.cells.equal / nearest.cells.total;
        if (!nearest || ratio > best || (ratio === best && earlier(at, nearestAt))) [nearest, nearestAt] = [answer, at];
      }
    }
  };

  // a mistake made from results is worth its results only where its shape (n x n or n, whatever the change; known
  // from the settings' run) can hold the paste
  const derivedShapes = new Map();
  const mayFit = (d) => !derivedShapes.has(d.name) || compareResult({ shape: derivedShapes.get(d.name) }, { ...paste, kind: 'size' }) !== null;

  // a run under changed settings and/or moved draws: only what it affects, up to the last target it affects.
  // `remember`: a single change's run kept, for the pairs to take the sections it alone reaches; `only`: the
  // results to recompute, where the others would print as in a run already compared; `classes` and
  // `derivedNames`: the mistakes in classes' forwards and made of results to try, where the others would print
  // as in a run already compared (given with `only`, the run recomputes only the sections that the results in
  // `only` need, so that a mistake made of other results would mix in the settings' values)
  const rejected = new Set(); // single changes (keyOf) whose settings the core rejects
  const tryChanges = (changes, { remember = false, only = null, classes = null, derivedNames = null } = {}) => {
    const changed = Object.assign({}, ...changes.map((c) => c.settings ?? {}));
    const draws = changes.find((c) => c.draws)?.draws ?? null;
    const direct = run.direct(Object.keys(changed), draws?.point);
    let affected = run.affected(Object.keys(changed), draws?.point);
    const targets = 'd_out' in changed || 'heads' in changed ? every : all;
    const wanted = [...new Set([...targets.map((t) => t.name), ...derived.filter(mayFit).flatMap((d) => d.from)])].filter((n) => affected[run.shownIn.get(n)] && (!only || only.has(n)));
    const shaping = changes.length === 1 && ('d_out' in changed || 'heads' in changed);
    if (wanted.length === 0) {
      if (shaping) shapesUnder.set(keyOf(changes[0]), new Map());
      return;
    }
    const runSettings = { ...settings, ...changed };
    if (only) affected = wanted.map((n) => run.neededFor(n, affected)).reduce((a, b) => a.map((x, i) => x || b[i]));
    const results = run.rerun(runSettings, { affected, direct, wanted, draws, remember, inspect: (results, parts) => check(results, changes, new Set(wanted), targets, parts, runSettings, classes, derivedNames) });
    if (!results && changes.length === 1) rejected.add(keyOf(changes[0]));
    if (results && shaping) shapesUnder.set(keyOf(changes[0]), new Map(wanted.map((n) => [n, results[n]?.shape])));
  };
  // a d_out or heads change (keyOf) -> the shapes of the results its run recomputed (the others keep theirs)
  const shapesUnder = new Map();

  // A single change that changes no shape (the other build's masks, dropout p, qkv_bias, moved draws) runs only
  // where, by the seed model, a result it may move (of the sections it reaches; a mistake made of results, in a
  // class or a class in training mode among them) can beat the nearest so far; it moves no number that no seed
  // moves. A d_out or heads change always runs: the pairs take the shapes its run made.
  const singleMayAnswer = (change) => {
    if (paste.kind === 'size' || 'd_out' in (change.settings ?? {}) || 'heads' in (change.settings ?? {})) return true;
    const affected = run.affected(Object.keys(change.settings ?? {}), change.draws?.point);
    const reached = (n) => affected[run.shownIn.get(n)];
    const runSettings = { ...settings, ...change.settings };
    const targets = [
      ...all.filter((t) => reached(t.name) && !SEEDLESS.has(t.name)).map((t) => ({ name: t.name, shape: run.results[t.name]?.shape, headWidth: HEAD_WIDTH[t.name]?.(runSettings) })),
      ...derived.filter((d) => mayFit(d) && d.from.some(reached)).map((d) => ({ name: d.name, shape: run.results[d.from[0]]?.shape, headWidth: null })),
      ...inClasses.filter((d) => reached(d.output) && fits(d.output)).map((d) => ({ name: d.name, shape: run.results[d.output]?.shape, headWidth: HEAD_WIDTH[d.output]?.(runSettings) })),
    ];
    const draws = change.draws ? { point: change.draws.point.name, count: change.draws.count } : null;
    return targets.length > 0 && mayPrintMore({ settings: runSettings, typedInputs: run.results.inputs.values, seeds: {}, draws, targets, paste, above: beaten() });
  };

  check(run.results, [], null, all, new Map([...run.parts].map(([name, { part }]) => [name, part])));
  if (exact.length) return finish(exact, nearest);
  if (pause && (await stopped())) return null;

  // each seed of the range, for every result a seed moves: modelled in doubles from the draws that feed it
  // (seed-scan.js), so that a seed costs the words and arithmetic of its first numbers; the few seeds whose
  // model can print as pasted are run in the core and compared exactly (running the chapter's sections per seed
  // took 4.6 s for 3.5.1's weights and 9.5 s for keys in Chromium). (A seed changes no shape: a torch.Size has
  // nothing for it to explain.)
  const scanned = [
    ...all.map((t) => ({ name: t.name, wanted: [t.name], shape: run.results[t.name]?.shape, headWidth: HEAD_WIDTH[t.name]?.(settings) })),
    ...derived.map((d) => ({ name: d.name, wanted: d.from, shape: run.results[d.from[0]]?.shape, headWidth: null })),
  ];
  if (paste.kind !== 'size') {
    // (the helper is not started before the range is reached: started with the single changes, it scanned for
    // searches that ended before the range, and under load those took 1.1-1.4 times as long, while the pastes
    // nothing explains gained nothing measurable)
    ongoing.range = rangeScan({ settings, typedInputs: run.results.inputs.values, targets: scanned, paste, keys: seedKeys(settings), range: seedRange, skipValues: COMMON_SEEDS });
  }

  // One change: the other build's masks, a setting, moved draws (whose runs also compare every mistake, so they
  // can find answers of two changes), then the common seeds and the range of seeds.
  const singles = [profileChange(settings.profile), ...settingChanges(settings), ...drawsChanges(run, settings)];
  for (const [i, change] of singles.entries()) {
    if (pause && (await stopped())) return null;
    at = [1, i];
    if (singleMayAnswer(change)) tryChanges([change], { remember: true });
  }
  // A seed alone answers only with a result that prints as pasted under it, and seed-scan.js's model of the
  // results a seed moves rules that out for nearly every seed at its first numbers: the common seeds it cannot
  // rule out run in the core, then the range's. (A torch.Size reaching this stage fits no result, and a seed
  // changes no shape: no seed can answer it.)
  const commonSeeds = paste.kind === 'size' ? [] : seedKeys(settings).flatMap((key) => COMMON_SEEDS.filter((v) => v !== settings[key]).map((v) => seedChange(key, settings[key], v)));
  const screened = seedsThatMayPrint(run, settings, paste, all.filter((t) => !t.change), commonSeeds);
  const afterSingles = exact.length;
  for (const [i, change] of commonSeeds.entries()) {
    if (pause && (await stopped())) return null;
    at = [2, i];
    if (screened(change)) tryChanges([change]);
  }
  if (exact.some((a) => a.changes.length <= 1)) return finish(exact, nearest);

  // the range of seeds (started above)
  const common = new Set(COMMON_SEEDS);
  if (pause && (await stopped())) return null;
  const { candidates, unmodelled } = ongoing.range ? await ongoing.range.finish() : { candidates: [], unmodelled: [] };
  // one core run per seed found, for all the results it may print as
  const bySeed = new Map();
  for (const { key, value, name } of candidates) {
    const id = `${key}=${value}`;
    if (!bySeed.has(id)) bySeed.set(id, { key, value, wanted: new Set() });
    for (const n of scanned.find((t) => t.name === name).wanted) bySeed.get(id).wanted.add(n);
  }
  // in the chapter's order of the results they explain (a CausalAttention seeded with s draws SelfAttention_v2's
  // weights for seedV2 = s: 3.5.1's answer comes first)
  const place = (name) => run.shownIn.get(name) * 1e4 + run.sections[run.shownIn.get(name)].shows.indexOf(name);
  const inOrder = [...bySeed.values()].map((g) => ({ ...g, at: Math.min(...[...g.wanted].map(place)) })).sort((a, b) => a.at - b.at);
  const beforeRange = exact.length;
  inOrder.forEach(({ key, value, wanted }, i) => {
    at = [3, i];
    const names = [...wanted];
    const affected = run.affected([key]);
    const sections = names.map((n) => run.neededFor(n, affected)).reduce((a, b) => a.map((x, i) => x || b[i]));
    const results = run.rerun({ ...settings, [key]: value }, { affected: sections, direct: run.direct([key]), wanted: names });
    if (results) check(results, [seedChange(key, settings[key], value)], wanted);
  });
  if (exact.some((a) => a.changes.length <= 1)) return finish(exact, nearest);

  // No answer of one change. Every common seed then runs, in the list's order, for the answers of a seed and a
  // mistake (which come before the range's, as these seeds are tried first); the range's two-change answers
  // count only when those find none.
  const fromRange = exact.splice(beforeRange);
  // The first pass's seed-and-mistake answers are dropped and found again below, in the list's order with every
  // mistake: an exact answer beats any nearest, and the seed model is an upper bound on the cells a seed can
  // print as pasted, so nearerUnder never skips a seed that gave one.
  exact.length = afterSingles;
  // (a seed whose results, the mistakes in the classes it reaches and those classes in training mode among them,
  // by the seed model, cannot print more cells as pasted than the nearest so far adds nothing: it does not run)
  const nearerUnder = (change) => {
    const affected = run.affected([change.name]);
    const reached = (n) => affected[run.shownIn.get(n)];
    const targets = [
      ...all.filter((t) => reached(t.name) && !SEEDLESS.has(t.name)).map((t) => ({ name: t.name, shape: run.results[t.name]?.shape, headWidth: HEAD_WIDTH[t.name]?.(settings) })),
      ...derived.filter((d) => mayFit(d) && d.from.some(reached)).map((d) => ({ name: d.name, shape: run.results[d.from[0]]?.shape, headWidth: null })),
      ...inClasses.filter((d) => reached(d.output) && fits(d.output)).map((d) => ({ name: d.name, shape: run.results[d.output]?.shape, headWidth: HEAD_WIDTH[d.output]?.(settings) })),
    ];
    return targets.length > 0 && mayPrintMore({ settings, typedInputs: run.results.inputs.values, seeds: { [change.name]: change.to }, targets, paste, above: beaten() });
  };
  for (const [i, change] of commonSeeds.entries()) {
    if (pause && (await stopped())) return null;
    at = [2, i];
    // (a seed paired later keeps the sections it runs, for the pairs)
    if (nearerUnder(change)) tryChanges([change], { remember: PAIRED_SEEDS.includes(change.to) });
  }
  if (exact.length) return finish(exact, nearest);
  exact.push(...fromRange);
  if (exact.length) return finish(exact, nearest);

  // results with no model (none today): each seed of the range through the core, for the steps that show what a
  // manual_seed draws first
  const slow = new Set(unmodelled.map((t) => t.name));
  const scans = seedKeys(settings).flatMap((key) => {
    const direct = run.direct([key]);
    const affected = run.affected([key]);
    const inRange = new Set(run.seedPoints.filter((p) => p.key === key && p.next).flatMap((p) => STEPS.filter((s) => s.show.includes(p.next)).flatMap((s) => s.show)));
    // one recompute per section and seed, for that section's results
    const bySection = new Map();
    for (const t of all) {
      const section = run.shownIn.get(t.name);
      if (slow.has(t.name) && inRange.has(t.name) && affected[section]) bySection.set(section, [...(bySection.get(section) ?? []), t.name]);
    }
    return [...bySection.values()].map((wanted) => ({
      key,
      direct,
      wanted,
      sections: wanted.map((n) => run.neededFor(n, affected)).reduce((a, b) => a.map((x, i) => x || b[i])),
    }));
  });
  let slowRun = 0;
  const scan = ({ key, direct, wanted, sections }, v) => {
    at = [4, slowRun++];
    const results = run.rerun({ ...settings, [key]: v }, { affected: sections, direct, wanted });
    if (results && wanted.some((n) => exactly(results[n]))) check(results, [seedChange(key, settings[key], v)], new Set(wanted));
  };
  for (const s of scans) {
    for (let v = 0; v <= seedRange; v++) if (!common.has(v) && v !== settings[s.key]) scan(s, v);
    if (exact.length) return finish(exact, nearest);
  }

  // pairs of different kinds, from the likelier values of each
  const fewSeeds = seedKeys(settings).flatMap((key) => PAIRED_SEEDS.filter((v) => v !== settings[key]).map((v) => seedChange(key, settings[key], v)));
  const groups = [[profileChange(settings.profile)], settingChanges(settings), drawsChanges(run, settings, { ownOnly: true }), fewSeeds];
  // Each change of a pair has run alone. A result that only one of them can move prints in the pair as it did in
  // that one's run (or the settings'), where it was compared; so a pair runs only for the results both can move
  // (by the settings each result's numbers depend on, ChapterRun.dependsOn), and not at all where there are none.
  const moves = pairMoves(run, settings, { targets: every, derived: derived.filter(mayFit), inClasses });
  // The seed model (seed-scan.js) bounds how many cells of each result both changes of a pair move (the mistakes in
  // classes and the classes in training mode among them) can print as pasted, a draws change as its seed point's
  // draws read further on: a pair runs only where that can beat the nearest so far (an exact answer beats it). A
  // shape under d_out or heads is the one that change's run made.
  const mayAnswer = (a, b, moved) => {
    if (paste.kind === 'size') return true;
    const changed = { ...a.settings, ...b.settings };
    const shaping = [a, b].find((c) => c.settings && ('d_out' in c.settings || 'heads' in c.settings));
    const reshaped = shaping ? shapesUnder.get(keyOf(shaping)) : new Map();
    if (!reshaped) return true;
    const shapeOf = (n) => (reshaped.has(n) ? reshaped.get(n) : run.results[n]?.shape);
    const runSettings = { ...settings, ...changed };
    const compared = new Set((shaping ? every : all).map((t) => t.name));
    // (the mistakes of a class whose output cannot hold the paste are not compared)
    const classes = inClasses.filter((d) => moved.classNames.has(d.name));
    if (classes.some((d) => !shapeOf(d.output))) return true;
    const targets = [
      ...moved.results.filter((n) => compared.has(n)).map((name) => ({ name, shape: shapeOf(name), headWidth: HEAD_WIDTH[name]?.(runSettings) })),
      ...moved.derived.map((d) => ({ name: d.name, shape: shapeOf(d.from[0]), headWidth: null })),
      ...classes
        .filter((d) => compareResult({ shape: shapeOf(d.output) }, { ...paste, kind: 'size' }, HEAD_WIDTH[d.output]?.(runSettings)) !== null)
        .map((d) => ({ name: d.name, shape: shapeOf(d.output), headWidth: HEAD_WIDTH[d.output]?.(runSettings) })),
    ];
    if (targets.length === 0) return false;
    const seeds = Object.fromEntries([a, b].filter((c) => c.kind === 'seed').map((c) => [c.name, c.to]));
    const moving = (a.draws ?? b.draws) ?? null;
    const draws = moving && { point: moving.point.name, count: moving.count };
    return mayPrintMore({ settings: runSettings, typedInputs: run.results.inputs.values, seeds, draws, targets, paste, above: beaten() });
  };
  let pair = 0;
  for (let i = 0; i < groups.length; i++) {
    for (let j = i + 1; j < groups.length; j++) {
      for (const a of groups[i]) {
        for (const b of groups[j]) {
          if (pause && (await stopped())) return null;
          at = [5, pair++];
          // (a setting the core rejected alone is rejected beside a seed, the other build's masks or moved draws,
          // which change no size: the pair's run would end in the same error, with nothing compared)
          if (rejected.has(keyOf(a)) || rejected.has(keyOf(b))) continue;
          const both = moves(a, b);
          if (both.names.size && mayAnswer(a, b, both)) tryChanges([a, b], { only: both.names, classes: both.classNames, derivedNames: new Set(both.derived.map((d) => d.name)) });
        }
      }
    }
  }
  return finish(exact, nearest);
}

// Settings the training-mode targets read beside their class's output (they build the class anew).
const TRAINING_READS = ['seed', 'profile', 'd_out', 'heads', 'qkv_bias', 'context_length'];

/**
 * For a pair of changes (a, b), the results a run of both must recompute: those whose numbers both can move
 * (a mistake made of results: its results; one put into a class's forward: the class's output, which its
 * section shows after the module and input it reads), as names for tryChanges' `only`. A draws change moves
 * what follows its seed point (ChapterRun.affected); a class's mistakes are not tried with one.
 */
function pairMoves(run, settings, { targets, derived, inClasses }) {
  const sectionsOf = new Map();
  const affectedBy = (change) => {
    if (!sectionsOf.has(change)) sectionsOf.set(change, run.affected(Object.keys(change.settings ?? {}), change.draws?.point));
    return sectionsOf.get(change);
  };
  const reads = (change, names, extra = []) => {
    // (moved draws, like a seed, move no number that is not drawn)
    if ((change.draws || change.kind === 'seed') && names.every((n) => SEEDLESS.has(n))) return false;
    if (change.draws) return names.some((n) => affectedBy(change)[run.shownIn.get(n)]);
    const keys = Object.keys(change.settings);
    return names.some((n) => {
      const deps = run.dependsOn(n);
      return deps.has('*') || keys.some((k) => deps.has(k));
    }) || keys.some((k) => extra.includes(k));
  };
  return (a, b) => {
    const names = new Set();
    const moved = { names, results: [], derived: [], classNames: new Set() };
    for (const t of targets) {
      if (reads(a, [t.name]) && reads(b, [t.name])) {
        names.add(t.name);
        moved.results.push(t.name);
      }
    }
    for (const d of derived) {
      if (reads(a, d.from) && reads(b, d.from)) {
        for (const n of d.from) names.add(n);
        moved.derived.push(d);
      }
    }
    if (!a.draws && !b.draws) {
      for (const d of inClasses) {
        // (a class whose section either change runs is tried in that run: counted as moved by it)
        const extra = d.name.startsWith('training:') ? TRAINING_READS : [];
        // (a training target's value is moved by the settings it reads, but a run has it only where its class's
        // section runs: moved by one change alone, it is new where only the other runs that section)
        const value = (c) => reads(c, [d.output], extra);
        const present = (c) => affectedBy(c)[run.shownIn.get(d.output)];
        if ((value(a) && value(b)) || (value(a) && !present(a) && present(b)) || (value(b) && !present(b) && present(a))) {
          names.add(d.output);
          moved.classNames.add(d.name);
        }
      }
    }
    return moved;
  };
}

// The common seeds tried in pairs with the other kinds.
const PAIRED_SEEDS = COMMON_SEEDS.slice(0, 4);

// Results that no seed moves (the book's x1 and x2, the masks, the batched-matmul example): the seed model leaves
// them out, and a seed's run prints them as the settings do.
export const SEEDLESS = new Set(['x1', 'x2', 'dot_x1_x2', 'mask_simple', 'causal_mask', 'bmm_a', 'bmm_out', 'bmm_first_head', 'bmm_second_head']);

/**
 * Of the seed changes `changes`, whether each may print one of `targets` as pasted: by seed-scan.js's model, for
 * every key whose results are all modelled (or seedless); a key with a result the model lacks keeps all its seeds.
 */
function seedsThatMayPrint(run, settings, paste, targets, changes) {
  if (changes.length === 0) return () => false;
  const keys = [...new Set(changes.map((c) => c.name))];
  const values = [...new Set(changes.map((c) => c.to))];
  const { candidates, unmodelled } = scanSeeds({
    settings,
    typedInputs: run.results.inputs.values,
    targets: targets.map((t) => ({ name: t.name, shape: run.results[t.name]?.shape, headWidth: HEAD_WIDTH[t.name]?.(settings) })),
    paste,
    keys,
    values,
    skip: (key, v) => v === settings[key],
  });
  const unscreened = new Set(keys.filter((key) => {
    const affected = run.affected([key]);
    return unmodelled.some((t) => !SEEDLESS.has(t.name) && affected[run.shownIn.get(t.name)]);
  }));
  const may = new Set(candidates.map((c) => `${c.key}=${c.value}`));
  return (change) => unscreened.has(change.name) || may.has(`${change.name}=${change.to}`);
}

// The width of one head's columns in the results that put the heads side by side (for a printout of one head).
const HEAD_WIDTH = {
  wrapper_out: (s) => s.d_out,
  wrapper_as_mha: (s) => s.d_out,
  wrapper_out_d1: () => 1,
  mha_context_merged: (s) => s.d_out / s.heads,
  mha_out: (s) => s.d_out / s.heads,
};

// A change as the same change made anew (the pairs' changes are made again)
const keyOf = (c) => JSON.stringify([c.kind, c.name, c.to, c.draws ? [c.draws.point.id, c.draws.count] : null]);

const publicChange = ({ kind, name, from, to, text, code }) => ({ kind, name, from, to, text, code });

// only the answers with the fewest changes (a mistake compared in every run can add one to a change that
// already explains the paste), in the chapter's order (the order found)
function finish(exact, nearest) {
  const seen = new Set();
  const unique = exact.filter((a) => {
    const key = JSON.stringify([a.result, a.at, a.changes.map((c) => [c.kind, c.name, c.to])]);
    return !seen.has(key) && seen.add(key);
  });
  const fewest = Math.min(...unique.map((a) => a.changes.length));
  const answers = unique.filter((a) => a.changes.length === fewest);
  return { exact: answers, nearest: answers.length ? null : nearest };
}

const lazyValues = (tensor) => {
  let values;
  return { tensor, shape: tensor.shape, get values() { return (values ??= tensor.toArray()); } };
};
