2two2three2fourB
last_words