-- The variants and samples one chat's responses come in, for its filters.
SELECT DISTINCT variant, sample_index FROM mmmt_if_turn_scores WHERE chat_id = ? ORDER BY variant DESC, sample_index;
