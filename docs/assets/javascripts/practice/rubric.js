// The hire-bar table as rules over the rubric's levels (macros/data/practice/rubric.toml, exported by
// macros/site/pages/mock_round.py): the same evaluation as macros/engine/problems/rubric.py. A score is an
// array of level indices, one per dimension (0 = below bar); null where not scored yet.

function termHolds(term, score) {
  let n = 0;
  for (const d of term.dims) if ((score[d] < term.level) === term.below) n += 1;
  return term.min <= n && n <= term.max;
}

// The verdicts whose rule the score meets (exactly one for a complete score and a well-formed table).
export function matchingVerdicts(rubric, score) {
  return rubric.verdicts.filter((v) => v.when.some((clause) => clause.every((t) => termHolds(t, score))));
}

// The one verdict for a complete score, or null while any dimension is unscored.
export function verdictFor(rubric, score) {
  if (score.length !== rubric.dimensions.length || score.some((x) => x === null || x === undefined)) return null;
  const found = matchingVerdicts(rubric, score);
  return found.length === 1 ? found[0] : null;
}
