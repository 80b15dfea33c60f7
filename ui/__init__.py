"""UI-only helpers for the Streamlit dashboard (these import streamlit; pe_eval_core never does).

``state`` holds every session-state key, ``data`` every cached call into the core, ``charts`` the
Altair builders, ``prose`` the escaped marked-prose HTML, ``errors`` the st.error rendering of a
PeEvalError, and ``views`` one module per page body.
"""
