"""The content the stores are filled with: a user's own files (own_content.py), the demo workspace (demo.py) and
its help centre in English (help_center.py), and what people write in the experiments (workload.py).

Each writes through the stores' people's side, never through an agent's tool.
"""
