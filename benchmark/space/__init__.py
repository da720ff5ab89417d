"""The leaderboard Space: a Gradio app over scored result files (served by `benchmark space serve`, published from hf_space/)."""
