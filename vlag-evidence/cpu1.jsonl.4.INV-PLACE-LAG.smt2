; INV-PLACE-LAG at /tmp/t-e/cpu1.jsonl:3687
; INV-PLACE-LAG: V - v after the wakeup equals the lag the preset restores
; sat: the values below, taken from the trace, violate it.
(declare-const V Real)
(declare-const v Real)
(declare-const expected Real)
; values from the trace
(assert (= V (- 836907.0)))
(assert (= v (- 1015918.0)))
(assert (= expected 179012.0))
; the violation
(assert (not (= (- V v) expected)))
(check-sat)
(get-model)
