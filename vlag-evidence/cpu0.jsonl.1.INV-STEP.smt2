; INV-STEP at /tmp/t-e/cpu0.jsonl:2
; INV-STEP: field 'V' equals the value of the SPEC.md operation on the same state
; sat: the values below, taken from the trace, violate it.
(declare-const reported Real)
(declare-const spec Real)
; values from the trace
(assert (= reported (- 1048576.0)))
(assert (= spec 0.0))
; the violation
(assert (not (= reported spec)))
(check-sat)
(get-model)
