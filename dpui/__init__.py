"""UI support for the DP Explorer pages: state, cached computations, figure factories.

``dpcore`` holds the numerics and never imports Streamlit or Plotly; everything
that touches ``st.session_state``, ``st.cache_data`` or builds Plotly figures
lives here, so that pages stay thin scripts.
"""
