# churn.sh: the plan of the ring changes, one line a step (a transaction):
#   <step> <shape> <kind>...
# shapes: one (a change), multi (three), rollback (a change rolled back),
# savepoint_undo_first (a change rolled back to a savepoint, then another),
# savepoint_undo_second (a change, then another rolled back to a savepoint).
# The kinds (see change_sql in setup.sql) are dealt from shuffled decks, so
# that every kind comes up about as often as its copies in the deck.
# Deterministic: srand(seed).
#   awk -v seed=N -v steps=N -f plan.awk
function deal(   i, j, t) {
	if (top > ndeck) {
		for (i = ndeck; i > 1; i--) {
			j = 1 + int(rand() * i)
			t = deck[i]; deck[i] = deck[j]; deck[j] = t
		}
		top = 1
	}
	return deck[top++]
}
BEGIN {
	srand(seed)
	ndeck = split("add add remove remove weight weight_dml vnodes vnodes_null " \
				  "down down_dml up up_dml rename rename zone ordinal insert_dml delete_dml " \
				  "ring_vnodes ring_hash ring_key_hash ring_template ring_ties side side swap swap " \
				  "k_add k_remove k_weight k_weight k_down k_up k_order k_ring", deck, " ")
	top = ndeck + 1
	for (s = 1; s <= steps; s++) {
		if (s % 10 == 4)
			print s, "multi", deal(), deal(), deal()
		else if (s % 10 == 8)
			print s, "rollback", deal()
		else if (s % 20 == 13)
			print s, "savepoint_undo_first", deal(), deal()
		else if (s % 20 == 3)
			print s, "savepoint_undo_second", deal(), deal()
		else
			print s, "one", deal()
	}
}
