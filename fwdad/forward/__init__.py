"""Forward mode: transform normalized code line by line into code over Duals."""
