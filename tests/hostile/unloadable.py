raise ImportError("this bot cannot even be imported")
