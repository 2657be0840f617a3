-- How far each judge can be trusted (position-swap consistency, parse rate, biases); for a judge panel
-- (registry/panels.yaml) also how far its members agree with one another (table panel_agreement, on the
-- five-point verdicts): Fleiss' kappa and the share of units where all members said the same, each member
-- pair's Cohen's kappa (their mean and the list), and the members' parse failures and failed calls, which
-- are counted and never votes. The panel_* columns are NULL for a single judge. The canary_* columns show how
-- the judge rated the integrity canaries' fixed answers (table canary_results; NULL for a panel). model_simulated is NULL: a
-- row covers every model the judge saw.
-- panel_units: units all members of the panel parsed.
-- panel_fleiss_kappa: Fleiss' kappa of the members.
-- panel_exact_agreement: share of units where all members gave the same verdict.
-- panel_mean_cohen_kappa: mean of the member pairs' Cohen's kappas.
-- panel_cohen_kappas: each member pair's Cohen's kappa ('a~b=kappa; ...').
-- panel_member_parse_failures: member outputs that did not parse (never a vote).
-- panel_member_errors: member calls that failed.
-- canary_figures: the integrity canaries' figures under this judge (benchmark × figure × canary; canary_report, docs/CANARIES.md).
-- canaries_beaten: of those, the figures clearly above their thresholds (the check canaries_lose fails).
-- canary_results: each canary figure as 'benchmark metric canary=figure (threshold t)', a '!' after those that beat it.
-- panel_effective_judges: how many independent judges the panel's members are worth (n / (1 + (n-1)·mean
--   correlation); benchwright.families.effective_judges).
-- self_preference: per benchmark, what the judge gives its own family's candidates above the other families'
--   judges, net of its leniency, with its 95 % interval ('benchmark=estimate [lower, upper]', a '!' when the
--   check judge_self_preference_below_threshold warns; table judge_self_preference, docs/judge_families.md).
-- judge: the judge's registry slug (a panel's slug for a panel).
-- pairs: (item, model) pairs with both orders judged.
CREATE OR REPLACE VIEW judge_report AS
WITH panels AS (
    SELECT panel AS judge,
           max(units) FILTER (WHERE judge_a = '*') AS panel_units,
           max(fleiss_kappa) FILTER (WHERE judge_a = '*') AS panel_fleiss_kappa,
           max(exact_agreement) FILTER (WHERE judge_a = '*') AS panel_exact_agreement,
           avg(cohen_kappa) FILTER (WHERE judge_a <> '*') AS panel_mean_cohen_kappa,
           string_agg(judge_a || '~' || judge_b || '=' || coalesce(printf('%.3f', cohen_kappa), 'n/a'), '; '
                      ORDER BY judge_a, judge_b) FILTER (WHERE judge_a <> '*') AS panel_cohen_kappas,
           max(member_parse_failures) FILTER (WHERE judge_a = '*') AS panel_member_parse_failures,
           max(member_errors) FILTER (WHERE judge_a = '*') AS panel_member_errors,
           max(effective_judges) FILTER (WHERE judge_a = '*') AS panel_effective_judges
    FROM panel_agreement
    GROUP BY panel
),
canaries AS (
    SELECT judge, count(*) AS canary_figures, count_if(beats_threshold) AS canaries_beaten,
           string_agg(benchmark || ' ' || metric || ' ' || model || '=' || coalesce(printf('%.3f', figure), 'n/a')
                      || ' (threshold ' || printf('%.3f', threshold) || ')'
                      || CASE WHEN beats_threshold THEN ' !' ELSE '' END, '; ' ORDER BY benchmark, metric, model) AS canary_results
    FROM canary_results
    GROUP BY judge
),
families AS (
    SELECT judge,
           string_agg(benchmark || '=' || coalesce(printf('%.3f', self_preference), 'n/a') || ' ['
                      || coalesce(printf('%.3f', lower), 'n/a') || ', ' || coalesce(printf('%.3f', upper), 'n/a') || ']'
                      || CASE WHEN flagged THEN ' !' ELSE '' END, '; ' ORDER BY benchmark) AS self_preference
    FROM judge_self_preference
    GROUP BY judge
)
SELECT q.judge_display AS judge_name, q.pairs, q.exact_consistency, q.relaxed_consistency, q.parse_rate,
       q.p_prefer_first, q.p_prefer_longer, q.model_simulated, q.judge_simulated, q.simulated, q.judge,
       p.panel_units, p.panel_fleiss_kappa, p.panel_exact_agreement, p.panel_mean_cohen_kappa, p.panel_cohen_kappas,
       p.panel_member_parse_failures, p.panel_member_errors,
       c.canary_figures, c.canaries_beaten, c.canary_results, p.panel_effective_judges, f.self_preference
FROM judge_quality q
LEFT JOIN panels p USING (judge)
LEFT JOIN canaries c USING (judge)
LEFT JOIN families f USING (judge)
ORDER BY q.exact_consistency DESC NULLS LAST;
