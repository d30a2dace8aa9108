// Writes tests/golden/diagnose-answers.json: what attention-lab/diagnose answers for each case of the diagnose
// benchmark (scripts/bench/diagnose-cases.mjs) at the book's sizes, searched over the whole chapter as the page's
// box does (a printout nothing explains: over its step's results, see searchedStep).
// tests/node/diagnose-answers.test.js holds the search to these answers, so that making it faster changes none.
// Run it again only for a change meant to change answers:
//   node tests/golden/gen_diagnose_answers.mjs [path of a diagnose/index.js, default this checkout's]
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { loadAttention } from '../../wasm/index.js';
import { diagnoseCases, searchedStep } from '../../scripts/bench/diagnose-cases.mjs';

const from = process.argv[2] ? pathToFileURL(process.argv[2]).href : new URL('../../diagnose/index.js', import.meta.url).href;
const { diagnose } = await import(from);
const cases = diagnoseCases(await loadAttention()).filter((c) => c.what.startsWith('book:'));
const answers = {};
for (const c of cases) answers[c.what] = JSON.parse(JSON.stringify(await diagnose({ printed: c.printed, settings: c.settings, step: searchedStep(c) })));
writeFileSync(new URL('diagnose-answers.json', import.meta.url), `${JSON.stringify({ cases: answers })}\n`);
