"""The Streamlit pages (run by file path through st.navigation in app.py) and their helpers in
`pages.ui`. A regular package so `import pages.ui` resolves here, never to tests/pages."""
