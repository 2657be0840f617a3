-- Answered pairwise judgments of the sources that come with human labels (judge–human agreement).
SELECT *
FROM creation_pairwise_judgments
WHERE error IS NULL
  AND source IN (SELECT DISTINCT source FROM interop_human_labels)
