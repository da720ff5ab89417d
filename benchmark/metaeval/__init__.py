"""Meta-evaluation: how far metrics and judges agree with references and with each other."""
