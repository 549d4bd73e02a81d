; INV-PLACE-LAG at /tmp/t-e/cpu1.jsonl:3691
; INV-PLACE-LAG: V - v after the wakeup equals the lag the preset restores
; sat: the values below, taken from the trace, violate it.
(declare-const V Real)
(declare-const v Real)
(declare-const expected Real)
; values from the trace
(assert (= V (- 842195.0)))
(assert (= v (- 1025970.0)))
(assert (= expected 183776.0))
; the violation
(assert (not (= (- V v) expected)))
(check-sat)
(get-model)
