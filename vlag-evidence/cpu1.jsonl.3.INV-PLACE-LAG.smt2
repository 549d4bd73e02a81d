; INV-PLACE-LAG at /tmp/t-e/cpu1.jsonl:3683
; INV-PLACE-LAG: V - v after the wakeup equals the lag the preset restores
; sat: the values below, taken from the trace, violate it.
(declare-const V Real)
(declare-const v Real)
(declare-const expected Real)
; values from the trace
(assert (= V (- 831604.0)))
(assert (= v (- 1006090.0)))
(assert (= expected 174487.0))
; the violation
(assert (not (= (- V v) expected)))
(check-sat)
(get-model)
