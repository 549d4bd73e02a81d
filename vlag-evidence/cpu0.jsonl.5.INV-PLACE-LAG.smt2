; INV-PLACE-LAG at /tmp/t-e/cpu0.jsonl:3698
; INV-PLACE-LAG: V - v after the wakeup equals the lag the preset restores
; sat: the values below, taken from the trace, violate it.
(declare-const V Real)
(declare-const v Real)
(declare-const expected Real)
; values from the trace
(assert (= V (- 853164.0)))
(assert (= v (- 1046913.0)))
(assert (= expected 193750.0))
; the violation
(assert (not (= (- V v) expected)))
(check-sat)
(get-model)
