; INV-PLACE-LAG at /tmp/t-e/cpu0.jsonl:3694
; INV-PLACE-LAG: V - v after the wakeup equals the lag the preset restores
; sat: the values below, taken from the trace, violate it.
(declare-const V Real)
(declare-const v Real)
(declare-const expected Real)
; values from the trace
(assert (= V (- 847894.0)))
(assert (= v (- 1036352.0)))
(assert (= expected 188459.0))
; the violation
(assert (not (= (- V v) expected)))
(check-sat)
(get-model)
