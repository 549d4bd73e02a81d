; INV-PLACE-LAG at /tmp/t-e/cpu0.jsonl:3678
; INV-PLACE-LAG: V - v after the wakeup equals the lag the preset restores
; sat: the values below, taken from the trace, violate it.
(declare-const V Real)
(declare-const v Real)
(declare-const expected Real)
; values from the trace
(assert (= V (- 826734.0)))
(assert (= v (- 996611.0)))
(assert (= expected 169878.0))
; the violation
(assert (not (= (- V v) expected)))
(check-sat)
(get-model)
