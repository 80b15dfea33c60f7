"""UI-only helpers for the Streamlit dashboard (these import streamlit; pe_eval_core never does).

``state`` holds every session-state key, ``data`` every cached call into the core, ``charts`` the
Altair builders, ``columns`` the score columns of tables, ``errors`` the st.error rendering of a
PeEvalError, and ``views`` one module per page body. No format or rule lives here: numbers,
names, bands and the pass rule are the core's (``pe_eval_core.wording``, the scorecard's
marked-prose renderer, the scenario checks' pass rule).
"""
