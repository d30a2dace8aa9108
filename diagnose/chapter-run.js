// The chapter (web/chapter/) run once with its settings, watched, so that a change can then be tried by
// recomputing only what it affects. The watched run records, per section, which settings, earlier results and
// earlier sections' values it reads, and where each torch.manual_seed happens; a changed run then skips every
// section that reads nothing changed (its results are the watched run's), reuses each kept module whose
// settings are unchanged, and stops as soon as the results it is asked for have been shown.
import { SECTIONS } from '../web/chapter/index.js';
import { chapterContext } from '../web/chapter/context.js';

const STOP = Symbol('diagnose: results shown');

// The sections' names, by which a seed point is named (seed-scan.js models the draws after each point by that
// name): written out, because a minified build renames the section functions, and names taken from them left the
// page's seed model unable to bound a draws change (tests/node/diagnose-seed-scan.test.js holds them to SECTIONS).
export const SECTION_NAMES = ['simpleAttention', 'simpleAttentionQuery', 'allTokens', 'trainableWeights', 'attentionClasses', 'causalMask', 'dropout', 'causalAttention', 'stackingHeads', 'weightSplits', 'exercises'];

// A result as the search needs it: its tensor, shape and label; its values only when read.
function record(name, tensor, label) {
  let values;
  return {
    name,
    label: label ?? name,
    tensor,
    shape: tensor.shape,
    get values() {
      return (values ??= tensor.toArray());
    },
  };
}

// The setting a manual_seed's value came from: the one just read, else the first seed with that value.
const SEED_KEYS = ['seed', 'seedV2', 'inputSeed'];
const seedKeyOf = (settings, lastKey, value) =>
  SEED_KEYS.includes(lastKey) && settings[lastKey] === value ? lastKey : (SEED_KEYS.find((k) => settings[k] === value) ?? null);

// Whether a section made a value as the watched run did: the same object, or a tensor of the same values.
const sameValue = (a, b) =>
  a === b || (typeof a?.toArray === 'function' && typeof b?.toArray === 'function' && a.shape.join() === b.shape.join() && JSON.stringify(a.toArray()) === JSON.stringify(b.toArray()));

const modulesIn = (torch, part) =>
  [part, ...(part?.constructor === Object ? Object.values(part) : [])].filter((v) => v instanceof torch.nn.Module);

export class ChapterRun {
  /** Runs the whole chapter under `settings`, watching what each section reads. */
  constructor(torch, settings) {
    this.torch = torch;
    this.settings = settings;
    this.sections = SECTIONS.map(() => ({ settings: new Set(), context: new Set(), results: new Set(), provides: new Set(), shows: [] }));
    this.parts = new Map(); // keep name -> { part, keys: settings read, key }
    this.seedPoints = []; // { id, name, section, scope, key, value, draws, next }
    this.shownIn = new Map(); // result name -> section index
    // result name -> what its section had read when it was shown ({ settings, context, results }): a result cannot
    // depend on what its section reads only after showing it (dependsOn)
    this.readBefore = new Map();
    this.dependencies = new Map();
    // sections recomputed by runs asked to remember them, by what they read (settings, moved draws, which run's
    // earlier sections): a run of two changes takes the sections that read only one of them from that one's run
    this.remembered = new Map();
    this.rememberedParts = [];
    const { results, context } = this.#run(settings, { watch: true });
    this.results = results;
    this.context = context;
  }

  /** Frees the modules the watched run kept. */
  dispose() {
    for (const { part } of this.parts.values()) for (const m of modulesIn(this.torch, part)) m.delete();
    for (const part of this.rememberedParts) for (const m of modulesIn(this.torch, part)) m.delete();
    this.parts.clear();
    this.remembered.clear();
    this.rememberedParts = [];
  }

  /** The sections that read a changed setting (`changedKeys`) or hold the seed point a draws change moves. */
  direct(changedKeys, drawsPoint = null) {
    return this.sections.map((s, i) => [...s.settings].some((k) => changedKeys.includes(k)) || drawsPoint?.section === i);
  }

  /** The sections a change may affect: the direct ones and those reading what an affected section made. */
  affected(changedKeys, drawsPoint = null) {
    const hit = this.direct(changedKeys, drawsPoint);
    const madeByHit = new Set();
    this.sections.forEach((s, i) => {
      hit[i] ||= [...s.context].some((k) => madeByHit.has(`c:${k}`)) || [...s.results].some((k) => madeByHit.has(`r:${k}`));
      if (hit[i]) {
        for (const k of s.provides) madeByHit.add(`c:${k}`);
        for (const k of s.shows) madeByHit.add(`r:${k}`);
      }
    });
    return hit;
  }

  /**
   * The settings a result's numbers can depend on: what its section had read when it was shown, and what the
   * results and earlier sections' values read by then depend on (a section's values on all its section read).
   */
  dependsOn(name) {
    const known = this.dependencies.get(name);
    if (known) return known;
    const read = this.readBefore.get(name);
    // (a fact, or anything not shown: every setting, '*')
    if (!read) return new Set(['*']);
    const section = this.shownIn.get(name);
    const keys = new Set(read.settings);
    this.dependencies.set(name, keys); // (no cycles: a section reads only what was shown before)
    for (const r of read.results) for (const k of this.dependsOn(r)) keys.add(k);
    for (const c of read.context) {
      this.sections.forEach((made, j) => {
        if (j < section && made.provides.has(c)) for (const k of this.#sectionDependsOn(j)) keys.add(k);
      });
    }
    return keys;
  }

  #sectionDependsOn(j) {
    const s = this.sections[j];
    return (s.dependsOn ??= (() => {
      const keys = new Set(s.settings);
      for (const r of s.results) for (const k of this.dependsOn(r)) keys.add(k);
      for (const c of s.context) this.sections.forEach((made, i) => {
        if (i < j && made.provides.has(c)) for (const k of this.#sectionDependsOn(i)) keys.add(k);
      });
      return keys;
    })());
  }

  /** Of `affected`, only the sections that the section showing `name` needs (it reads what they made). */
  neededFor(name, affected) {
    const last = this.shownIn.get(name);
    const need = this.sections.map((_, i) => i === last);
    for (let j = last - 1; j >= 0; j--) {
      const made = this.sections[j];
      need[j] = this.sections.some(
        (s, i) => i > j && need[i] && ([...s.context].some((k) => made.provides.has(k)) || [...s.results].some((k) => made.shows.includes(k))),
      );
    }
    return affected.map((hit, i) => hit && need[i]);
  }

  /**
   * Recomputes, of the sections in `affected`, those that read a changed setting (`direct`) or something that
   * a recomputed section made differently, under `settings` (and a draws change: { point, count }), stopping
   * once every name in `wanted` has been shown. Returns the results (the watched run's where not recomputed),
   * or null when the core rejects these settings. `inspect(results, parts)` sees the kept parts this run made or
   * reused (name -> part) before the new ones are deleted. With `remember`, the sections it completes are kept
   * for later runs (until dispose).
   */
  rerun(settings, { affected, direct, wanted, draws = null, inspect = null, remember = false }) {
    const fresh = [];
    try {
      const { results, parts } = this.#run(settings, { affected, direct, wanted, draws, fresh, remember });
      inspect?.(results, parts); // while its modules are alive
      return results;
    } catch (error) {
      if (error?.name === 'AttentionError') return null;
      throw error;
    } finally {
      for (const part of fresh) for (const m of modulesIn(this.torch, part)) m.delete();
    }
  }

  // Whether section `i` reads what section `j` made.
  #feeds(j, i) {
    const made = this.sections[j];
    const reads = this.sections[i];
    return [...reads.context].some((k) => made.provides.has(k)) || [...reads.results].some((k) => made.shows.includes(k));
  }

  #run(runSettings, { watch = false, affected = null, direct = null, wanted = null, draws = null, fresh = [], remember = false }) {
    const { torch } = this;
    const readers = [];
    let lastKey = null;
    const settings = new Proxy(runSettings, {
      get(target, key) {
        if (typeof key === 'string') {
          for (const r of readers) r.add(key);
          if (scope === '') outside.add(key);
          lastKey = key;
        }
        return target[key];
      },
    });
    let section = -1;
    let outside = new Set(); // what the section has read so far outside its kept parts
    let scope = ''; // the kept part being made, if any
    let ordinals = new Map();
    let openPoint = null;
    const closePoint = () => {
      if (openPoint) openPoint.draws = torch.rngDraws();
      openPoint = null;
    };
    // torch with its manual_seed watched: each call is a seed point, named by section, kept part and order
    const seeded = Object.create(torch);
    seeded.manualSeed = (value) => {
      if (watch) closePoint();
      torch.manualSeed(value);
      const ordinal = ordinals.get(scope) ?? 0;
      ordinals.set(scope, ordinal + 1);
      const id = `${section}/${scope}/${ordinal}`;
      // (name: the same point by its section's name, which the seed models know it by)
      if (watch) this.seedPoints.push((openPoint = { id, name: `${SECTION_NAMES[section]}/${scope}/${ordinal}`, section, scope, key: seedKeyOf(runSettings, lastKey, value), value, draws: 0, next: null }));
      if (draws?.point.id === id) torch.rand(draws.count); // the generator moved on before what follows
    };

    const results = watch ? {} : { ...this.results };
    const parts = new Map(); // the kept parts this run made or reused
    let written = new Map(); // what the section being run wrote into results
    let sectionParts = new Map(); // and the kept parts it made or reused
    let pending = wanted ? new Set(wanted) : null;
    const watchedResults = watch
      ? new Proxy(results, {
          get: (target, key) => {
            if (typeof key === 'string' && key in target) this.sections[section].results.add(key);
            return target[key];
          },
        })
      : results;
    const chapter = chapterContext(seeded, settings);
    if (!watch) Object.assign(chapter, this.context);
    chapter.results = watchedResults;
    chapter.show = (name, tensor, extra = {}) => {
      results[name] = record(name, tensor, extra.label);
      written.set(name, results[name]);
      if (watch) {
        const reads = this.sections[section];
        this.readBefore.set(name, { settings: [...reads.settings], context: [...reads.context], results: [...reads.results] });
        this.sections[section].shows.push(name);
        this.shownIn.set(name, section);
        for (const p of this.seedPoints) if (p.section === section && p.next === null) p.next = name;
      }
      if (pending?.delete(name) && pending.size === 0) throw STOP;
      return tensor;
    };
    chapter.fact = (name, value) => {
      results[name] = { name, value };
      written.set(name, results[name]);
      return results[name];
    };
    chapter.keep = (name, make) => {
      const known = this.parts.get(name);
      if (!watch) {
        const key = JSON.stringify([...known.keys].map((k) => runSettings[k]));
        const moved = draws?.point.section === section && draws.point.scope === name;
        if (key === known.key && !moved) {
          sectionParts.set(name, known.part);
          return parts.set(name, known.part).get(name);
        }
      }
      // what the part's make() reads, and what the section read before (a size taken from settings up front)
      const keys = new Set(outside);
      readers.push(keys);
      const outer = scope;
      scope = name;
      ordinals.set(name, 0);
      try {
        const part = make();
        if (watch) this.parts.set(name, { part, keys, key: JSON.stringify([...keys].map((k) => runSettings[k])) });
        else fresh.push(part);
        parts.set(name, part);
        sectionParts.set(name, part);
        return part;
      } finally {
        if (watch) closePoint();
        scope = outer;
        readers.pop();
      }
    };

    const context = {};
    const watchedContext = watch
      ? new Proxy(chapter, {
          get: (target, key) => {
            if (typeof key === 'string') this.sections[section].context.add(key);
            return target[key];
          },
        })
      : chapter;
    try {
      const differs = new Set(); // 'c:key' and 'r:name' that a recomputed section made differently
      const keys = new Map(); // section -> what its results in this run follow from (recomputed sections only)
      for (let i = 0; i < SECTIONS.length; i++) {
        if (affected && !affected[i]) continue;
        const reads = this.sections[i];
        if (direct && !direct[i] && ![...reads.context].some((k) => differs.has(`c:${k}`)) && ![...reads.results].some((k) => differs.has(`r:${k}`))) continue;
        if (!watch) for (const k of reads.shows) differs.add(`r:${k}`);
        let key = null;
        if (!watch) {
          const moved = draws?.point.section === i ? [draws.point.id, draws.count] : null;
          const earlier = [...keys].filter(([j]) => this.#feeds(j, i)).map(([, k]) => k);
          key = JSON.stringify([i, [...reads.settings].map((k) => runSettings[k] ?? null), moved, earlier]);
          keys.set(i, key);
          const kept = this.remembered.get(key);
          // (not the section where this run stops: it would hold results past the last one asked for)
          if (kept && !(pending && [...pending].every((n) => kept.written.has(n)))) {
            for (const [name, value] of kept.written) {
              results[name] = value;
              pending?.delete(name);
            }
            for (const [name, part] of kept.parts) parts.set(name, part);
            for (const k of kept.differs) differs.add(k);
            Object.assign(chapter, kept.made);
            Object.assign(context, kept.made);
            continue;
          }
        }
        section = i;
        ordinals = new Map();
        outside = new Set();
        written = new Map();
        sectionParts = new Map();
        const freshBefore = fresh.length;
        if (watch) readers.push(this.sections[i].settings);
        const made = SECTIONS[i](watchedContext) ?? {};
        if (watch) {
          readers.pop();
          closePoint();
          for (const k of Object.keys(made)) this.sections[i].provides.add(k);
        }
        const madeDiffers = watch ? [] : Object.entries(made).filter(([k, v]) => !sameValue(v, this.context[k])).map(([k]) => `c:${k}`);
        for (const k of madeDiffers) differs.add(k);
        if (remember) {
          this.remembered.set(key, { written, parts: sectionParts, differs: madeDiffers, made });
          this.rememberedParts.push(...fresh.splice(freshBefore)); // deleted by dispose, not after this run
        }
        Object.assign(chapter, made);
        Object.assign(context, made);
      }
    } catch (error) {
      if (error !== STOP) throw error;
    } finally {
      torch.setRngProfile('default');
    }
    return { results, context, parts };
  }
}
