-- The values of the compare views' item filters per benchmark (category, intent, language, topic) and MMMT-IF's
-- variants.
SELECT DISTINCT 'creation' AS benchmark, 'category' AS filter, category AS value FROM creation_items
UNION SELECT 'urs', 'intent', intent FROM urs_items
UNION SELECT 'urs', 'language', language FROM urs_items
UNION SELECT 'gap', 'category', category FROM gap_vqa_items
UNION SELECT 'mmmt_if', 'topic', topic FROM mmmt_if_chats
UNION SELECT 'mmmt_if', 'variant', variant FROM mmmt_if_summary
ORDER BY benchmark, filter, value;
