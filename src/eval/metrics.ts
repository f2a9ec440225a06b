/** Per-query ranking metrics as trec_eval/pytrec_eval compute them (linear gains). */
export interface QueryMetrics {
  'ndcg@10': number;
  'mrr@10': number;
  'recall@10': number;
  'recall@100': number;
}

export const metricNames = ['ndcg@10', 'mrr@10', 'recall@10', 'recall@100'] as const;

export function scoreRanking(ranked: readonly string[], judged: ReadonlyMap<string, number>): QueryMetrics {
  const relevant = [...judged.entries()].filter(([, grade]) => grade > 0);
  const relevantCount = relevant.length;
  let dcg = 0;
  let reciprocalRank = 0;
  let hitsAt10 = 0;
  let hitsAt100 = 0;
  ranked.slice(0, 100).forEach((id, index) => {
    const grade = judged.get(id) ?? 0;
    if (grade <= 0) return;
    if (index < 10) {
      dcg += grade / Math.log2(index + 2);
      hitsAt10++;
      if (reciprocalRank === 0) reciprocalRank = 1 / (index + 1);
    }
    hitsAt100++;
  });
  const ideal = relevant
    .map(([, grade]) => grade)
    .sort((a, b) => b - a)
    .slice(0, 10)
    .reduce((sum, grade, index) => sum + grade / Math.log2(index + 2), 0);
  return {
    'ndcg@10': ideal > 0 ? dcg / ideal : 0,
    'mrr@10': reciprocalRank,
    'recall@10': relevantCount > 0 ? hitsAt10 / relevantCount : 0,
    'recall@100': relevantCount > 0 ? hitsAt100 / relevantCount : 0,
  };
}

export function meanMetrics(all: readonly QueryMetrics[]): QueryMetrics {
  const sums: QueryMetrics = { 'ndcg@10': 0, 'mrr@10': 0, 'recall@10': 0, 'recall@100': 0 };
  for (const metrics of all) for (const name of metricNames) sums[name] += metrics[name];
  for (const name of metricNames) sums[name] = all.length > 0 ? sums[name] / all.length : 0;
  return sums;
}
